#include "pipeline/model_input.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <opencv2/imgproc.hpp>

#include "common/check.h"

namespace ocr::pipeline {

int ResizedWidth(const cv::Mat& crop, int height, int max_width) {
  const double ratio = static_cast<double>(crop.cols) / static_cast<double>(crop.rows);
  const double w = std::ceil(height * ratio);
  if (w > max_width)
    return max_width;
  return std::max(1, static_cast<int>(w));
}

GreyHistogram GreyHistogramOf(const cv::Mat& image) {
  cv::Mat grey;
  cv::cvtColor(image, grey, cv::COLOR_BGR2GRAY);
  GreyHistogram histogram{};
  for (int y = 0; y < grey.rows; ++y) {
    const auto* row = grey.ptr<std::uint8_t>(y);
    for (int x = 0; x < grey.cols; ++x)
      ++histogram[row[x]];
  }
  return histogram;
}

int GreyLevelAt(const GreyHistogram& histogram, std::int64_t rank) {
  std::int64_t seen = 0;
  for (int level = 0; level < 255; ++level) {
    seen += histogram[static_cast<size_t>(level)];
    if (seen > rank)
      return level;
  }
  return 255;
}

void StretchLevels(cv::Mat& image, int lo, int hi) {
  OCR_CHECK(hi > lo);
  const double gain = 255.0 / (hi - lo);
  image.convertTo(image, -1, gain, -lo * gain);
}

std::vector<std::size_t> OrderByAspectRatio(std::span<const cv::Mat> crops) {
  auto ratio = [&](std::size_t i) {
    return static_cast<double>(crops[i].cols) / static_cast<double>(crops[i].rows);
  };
  std::vector<std::size_t> order(crops.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ratio(a) < ratio(b); });
  return order;
}

int FillCropInput(const cv::Mat& crop, int height, int width, const Normalization& norm,
                  float* out) {
  const int resized_width = ResizedWidth(crop, height, width);
  cv::Mat resized;
  cv::resize(crop, resized, cv::Size(resized_width, height));
  NormalizeToPlanes(resized, norm, width, height, out);
  return resized_width;
}

void NormalizeToPlanes(const cv::Mat& image, const Normalization& norm, int plane_width,
                       int plane_height, float* out) {
  OCR_CHECK(image.type() == CV_8UC3 && image.cols <= plane_width && image.rows <= plane_height);
  const size_t plane = static_cast<size_t>(plane_width) * static_cast<size_t>(plane_height);
  // (x * scale - mean) / std == x * a + b, computed once per channel.
  float a[3], b[3];
  for (size_t c = 0; c < 3; ++c) {
    a[c] = norm.scale / norm.std[c];
    b[c] = -norm.mean[c] / norm.std[c];
  }
  for (int y = 0; y < image.rows; ++y) {
    const auto* row = image.ptr<cv::Vec3b>(y);
    float* p0 = out + static_cast<size_t>(y) * static_cast<size_t>(plane_width);
    float* p1 = p0 + plane;
    float* p2 = p1 + plane;
    for (int x = 0; x < image.cols; ++x) {
      p0[x] = static_cast<float>(row[x][0]) * a[0] + b[0];
      p1[x] = static_cast<float>(row[x][1]) * a[1] + b[1];
      p2[x] = static_cast<float>(row[x][2]) * a[2] + b[2];
    }
  }
}

}  // namespace ocr::pipeline
