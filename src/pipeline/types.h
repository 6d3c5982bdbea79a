// Plain value types shared by the pipeline stages and its callers. Thread-safety: plain values.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace ocr::pipeline {

struct Point {
  float x = 0;
  float y = 0;
};

// Four corners of a text box in original image pixels, clockwise from the top-left corner of
// the text as it is read: top-left, top-right, bottom-right, bottom-left.
using Quad = std::array<Point, 4>;

// One recognized text line.
struct TextLine {
  std::string text;        // UTF-8
  float confidence = 0;    // mean of the kept CTC max probabilities, in [0, 1]
  Quad box;
};

}  // namespace ocr::pipeline
