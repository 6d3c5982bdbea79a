// Text lines placed by hand for the layout tests: an axis-aligned box with corners (x0, y0) and
// (x1, y1), confidence 0.9.
#pragma once

#include <string>
#include <utility>

#include "pipeline/types.h"

namespace ocr::testing {

inline pipeline::TextLine Line(std::string text, float x0, float y0, float x1, float y1) {
  pipeline::TextLine line;
  line.text = std::move(text);
  line.confidence = 0.9F;
  line.box = {{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}};
  return line;
}

}  // namespace ocr::testing
