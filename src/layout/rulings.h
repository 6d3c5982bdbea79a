// Ruling lines: the long, thin horizontal and vertical strokes a page draws around and between
// table cells, found in the page image with OpenCV morphology. tables.h reads a grid from them.
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include <opencv2/core.hpp>

namespace ocr::layout {

// One straight stroke, axis-aligned in the frame it was found in: y0 == y1 for a horizontal one,
// x0 == x1 for a vertical one; x0 <= x1 and y0 <= y1.
struct Ruling {
  float x0 = 0;
  float y0 = 0;
  float x1 = 0;
  float y1 = 0;

  bool Horizontal() const { return x1 - x0 >= y1 - y0; }
};

// The rulings of `page` (8-bit, 1 or 3 channels), in its pixels. `text_height` is the page's
// median text line height in pixels: a ruling must be clearly longer than any stroke of a glyph
// (a dash, the bar of a Han character), and strokes thicker than half a line are filled areas,
// not rulings. Dark strokes on a light page and light on dark are both found.
std::vector<Ruling> FindRulings(const cv::Mat& page, float text_height);

}  // namespace ocr::layout
