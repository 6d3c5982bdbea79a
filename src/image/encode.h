// Page images encoded for viewers (GET /jobs/{id}/pages/{n}/image). Thread-safety: pure
// functions.
#pragma once

#include <string>

#include <opencv2/core.hpp>

#include "common/status.h"

namespace ocr::image {

// `bgr` (CV_8UC3, or CV_8UC1 gray) as a baseline JPEG of `quality` (1-100). Errors: kInternal when
// the encoder fails (an empty image).
Result<std::string> EncodeJpeg(const cv::Mat& bgr, int quality);

}  // namespace ocr::image
