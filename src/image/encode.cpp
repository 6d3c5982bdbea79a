#include "image/encode.h"

#include <cstdint>
#include <vector>

#include <opencv2/imgcodecs.hpp>

namespace ocr::image {

Result<std::string> EncodeJpeg(const cv::Mat& bgr, int quality) {
  std::vector<std::uint8_t> jpeg;
  if (bgr.empty() || !cv::imencode(".jpg", bgr, jpeg, {cv::IMWRITE_JPEG_QUALITY, quality}))
    return Status(StatusCode::kInternal, "the page image could not be encoded as JPEG");
  return std::string(jpeg.begin(), jpeg.end());
}

}  // namespace ocr::image
