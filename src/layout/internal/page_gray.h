// The page image as one 8-bit grey channel, and the scale it is read at, for rulings.cpp and
// shading.cpp, which read strokes and fills from grey levels alone. Thread-safety: pure function.
#pragma once

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace ocr::layout::internal {

// Pages are analysed with text about this tall (pixels) at most: rulings and fills need no more
// detail, and a large scan costs proportionally less.
inline constexpr float kWorkingTextHeightPx = 20.0F;

// `page` (8-bit, 1, 3 (BGR) or 4 (BGRA) channels) in grey; a grey page is returned as it is,
// sharing its pixels.
inline cv::Mat PageGray(const cv::Mat& page) {
  cv::Mat gray;
  if (page.channels() == 3) {
    cv::cvtColor(page, gray, cv::COLOR_BGR2GRAY);
  } else if (page.channels() == 4) {
    cv::cvtColor(page, gray, cv::COLOR_BGRA2GRAY);
  } else {
    gray = page;
  }
  return gray;
}

}  // namespace ocr::layout::internal
