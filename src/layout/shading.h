// Shaded bands: the filled backgrounds a page puts behind rows of a table (zebra stripes, a
// shaded or dark header row), found in the page image from its grey levels. Where rulings are the
// strokes between rows, a band's top and bottom edges are the same evidence: text inside one band
// is one row. tables.h reads row boundaries from both.
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include <opencv2/core.hpp>

namespace ocr::layout {

// An axis-aligned filled area, in the page's pixels, and its fill's grey level (0 black, 255
// white).
struct Band {
  float left = 0;
  float top = 0;
  float right = 0;
  float bottom = 0;
  int fill = 0;
};

// The bands of `page` (8-bit, 1, 3 or 4 channels): areas at least a few text heights wide and
// about a row tall whose background is clearly darker than the paper just above or below them.
// `text_height` is the page's median text line height in pixels. A smooth shadow across a photo
// is not a band (it is no darker than the paper a row away), nor is text (it never fills a row).
std::vector<Band> FindBands(const cv::Mat& page, float text_height);

}  // namespace ocr::layout
