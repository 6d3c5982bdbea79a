// Image -> planar float tensor data, the input layout of every PP-OCR model, and how a text crop
// becomes one item of a classifier or recognizer batch: its width at the model's height
// (ResizedWidth), the order crops are batched in, and the resize-and-normalize into the batch.
// (The recognizer's padded batch width is TextRecognizer::BatchWidth, from RecOptions.)
// Thread-safety: pure functions.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <opencv2/core/mat.hpp>

namespace ocr::pipeline {

// Per-channel affine normalization applied as ((pixel * scale) - mean[c]) / std[c], in the
// channel order of the image (BGR as decoded, like the reference pipeline).
struct Normalization {
  float scale = 1.0f / 255.0f;
  std::array<float, 3> mean = {0.5f, 0.5f, 0.5f};
  std::array<float, 3> std = {0.5f, 0.5f, 0.5f};
};

// ImageNet statistics: the DB detectors' input, and PP-LCNet classifiers'.
inline constexpr Normalization kImageNetNormalization = {
    1.0f / 255.0f, {0.485f, 0.456f, 0.406f}, {0.229f, 0.224f, 0.225f}};

// Maps x/255 to [-1, 1]: the recognizers' input, and the mobile v2 classifier's.
inline constexpr Normalization kSymmetricNormalization = {};

// Writes `image` (CV_8UC3) as three planes into `out`, which holds 3 x plane_height x plane_width
// floats; columns and rows beyond the image are left untouched (callers zero-fill for padding).
// REQUIRES: image.cols <= plane_width, image.rows <= plane_height.
void NormalizeToPlanes(const cv::Mat& image, const Normalization& norm, int plane_width,
                       int plane_height, float* out);

// The width of `crop` resized to `height` keeping its aspect ratio: ceil(height * w / h), as the
// reference computes it, at least 1 and at most `max_width`.
int ResizedWidth(const cv::Mat& crop, int height, int max_width);

// How many pixels of CV_8UC3 `image` have each grey level (its luminance, as cv::cvtColor takes
// it).
using GreyHistogram = std::array<std::int64_t, 256>;
GreyHistogram GreyHistogramOf(const cv::Mat& image);

// The grey level of the pixel `rank` places from the darkest (0: the darkest).
int GreyLevelAt(const GreyHistogram& histogram, std::int64_t rank);

// Maps grey level `lo` of CV_8UC3 `image` to 0 and `hi` to 255, linearly, saturating beyond.
// REQUIRES: hi > lo.
void StretchLevels(cv::Mat& image, int lo, int hi);

// Indices of `crops` from the narrowest aspect ratio to the widest (stable): similar widths
// batch together, so padding within a batch stays small, as in the reference.
std::vector<std::size_t> OrderByAspectRatio(std::span<const cv::Mat> crops);

// Resizes `crop` to `height` x ResizedWidth(crop, height, width) and writes it normalized by
// `norm` (the model family's) into the 3 x height x width planes at `out`, leaving the padding to
// its right untouched. Returns the resized width.
int FillCropInput(const cv::Mat& crop, int height, int width, const Normalization& norm,
                  float* out);

}  // namespace ocr::pipeline
