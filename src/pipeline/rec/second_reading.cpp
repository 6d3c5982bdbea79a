#include "pipeline/rec/second_reading.h"

#include <cmath>
#include <utility>

#include <opencv2/imgproc.hpp>

#include "common/check.h"

namespace ocr::pipeline {

std::vector<size_t> LinesToReadAgain(std::span<const cv::Mat> crops,
                                     std::span<const DecodedText> readings, float kept_from) {
  OCR_CHECK(crops.size() == readings.size());
  std::vector<size_t> lines;
  for (size_t i = 0; i < crops.size(); ++i) {
    const float confidence = readings[i].confidence;
    if (!crops[i].empty() && crops[i].rows < kSmallLineHeight && confidence < kUnsureConfidence &&
        confidence >= kept_from) {
      lines.push_back(i);
    }
  }
  return lines;
}

cv::Mat Widened(const cv::Mat& crop) {
  const int width = static_cast<int>(std::lround(crop.cols * kSecondReadingWidth));
  cv::Mat widened;
  cv::resize(crop, widened, cv::Size(width, crop.rows), 0, 0, cv::INTER_LINEAR);
  return widened;
}

void KeepTheSurer(DecodedText& first, DecodedText second, int crop_width, int widened_width) {
  if (second.confidence <= first.confidence || widened_width <= 0)
    return;
  second.column_width *= static_cast<float>(crop_width) / static_cast<float>(widened_width);
  first = std::move(second);
}

}  // namespace ocr::pipeline
