#include "pipeline/normalize.h"

namespace ocr::pipeline {

void NormalizeToPlanes(const cv::Mat& image, const Normalization& norm, int plane_width,
                       int plane_height, float* out) {
  const size_t plane = static_cast<size_t>(plane_width) * static_cast<size_t>(plane_height);
  // (x * scale - mean) / std == x * a + b, computed once per channel.
  float a[3], b[3];
  for (int c = 0; c < 3; ++c) {
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
