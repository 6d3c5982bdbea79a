// Image -> planar float tensor data, the input layout of every PP-OCR model.
// Thread-safety: pure functions.
#pragma once

#include <array>

#include <opencv2/core/mat.hpp>

namespace ocr::pipeline {

// Per-channel affine normalization applied as ((pixel * scale) - mean[c]) / std[c], in the
// channel order of the image (BGR as decoded, like the reference pipeline).
struct Normalization {
  float scale = 1.0f / 255.0f;
  std::array<float, 3> mean = {0.5f, 0.5f, 0.5f};
  std::array<float, 3> std = {0.5f, 0.5f, 0.5f};
};

// ImageNet statistics, used by the DB detector.
inline constexpr Normalization kImageNetNormalization = {
    1.0f / 255.0f, {0.485f, 0.456f, 0.406f}, {0.229f, 0.224f, 0.225f}};

// Maps x/255 to [-1, 1], used by the classifier and the recognizer.
inline constexpr Normalization kSymmetricNormalization = {};

// Writes `image` (CV_8UC3) as three planes into `out`, which holds 3 x plane_height x plane_width
// floats; columns and rows beyond the image are left untouched (callers zero-fill for padding).
// REQUIRES: image.cols <= plane_width, image.rows <= plane_height.
void NormalizeToPlanes(const cv::Mat& image, const Normalization& norm, int plane_width,
                       int plane_height, float* out);

}  // namespace ocr::pipeline
