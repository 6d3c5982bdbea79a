// Boxes and text lines placed by hand for the pipeline and layout tests: an axis-aligned box with
// corners (x0, y0) and (x1, y1), clockwise from the top left; a line in it has confidence 0.9.
#pragma once

#include <string>
#include <utility>

#include "pipeline/types.h"

namespace ocr::testing {

inline pipeline::Quad Box(float x0, float y0, float x1, float y1) {
  return {pipeline::Point{x0, y0}, pipeline::Point{x1, y0}, pipeline::Point{x1, y1},
          pipeline::Point{x0, y1}};
}

inline pipeline::TextLine Line(std::string text, float x0, float y0, float x1, float y1) {
  pipeline::TextLine line;
  line.text = std::move(text);
  line.confidence = 0.9F;
  line.box = Box(x0, y0, x1, y1);
  return line;
}

}  // namespace ocr::testing
