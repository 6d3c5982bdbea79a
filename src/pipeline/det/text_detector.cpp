#include "pipeline/det/text_detector.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <opencv2/imgproc.hpp>

#include "common/clock.h"
#include "pipeline/geometry.h"
#include "pipeline/model_input.h"

namespace ocr::pipeline {

std::optional<LimitType> ParseLimitType(std::string_view name) {
  if (name == "max")
    return LimitType::kMax;
  if (name == "min")
    return LimitType::kMin;
  if (name == "auto")
    return LimitType::kAuto;
  return std::nullopt;
}

std::string_view LimitTypeName(LimitType type) {
  switch (type) {
    case LimitType::kMax:
      return "max";
    case LimitType::kMin:
      return "min";
    case LimitType::kAuto:
      return "auto";
  }
  return "max";
}

cv::Size DetInputSize(int width, int height, const DetOptions& options) {
  const double limit = options.limit_side_len;
  const int longer = std::max(width, height);
  const int shorter = std::min(width, height);
  double ratio = 1.0;
  if (options.limit_type != LimitType::kMin) {
    if (longer > limit)
      ratio = limit / longer;
  } else if (shorter < limit) {
    ratio = limit / shorter;
  }
  if (longer * ratio > kMaxDetSide)
    ratio = static_cast<double>(kMaxDetSide) / longer;
  // int() then round(x / 32) * 32 as in the reference; nearbyint rounds halves to even like
  // Python's round().
  auto to32 = [](double side) {
    const double truncated = std::floor(side);
    return std::max(static_cast<int>(std::nearbyint(truncated / 32.0) * 32.0), 32);
  };
  return {to32(width * ratio), to32(height * ratio)};
}

void StretchLowContrast(cv::Mat& image) {
  const GreyHistogram histogram = GreyHistogramOf(image);
  // The darkest and brightest levels once 0.5% of the pixels are set aside at each end (specks,
  // a stray dark border).
  const auto pixels = static_cast<std::int64_t>(image.total());
  const std::int64_t outliers = pixels / 200;
  const int lo = GreyLevelAt(histogram, outliers);
  const int hi = GreyLevelAt(histogram, pixels - 1 - outliers);
  const int range = hi - lo;
  if (range < 8 || range >= kLowContrastRange)
    return;
  StretchLevels(image, lo, hi);
}

Result<std::vector<Quad>> TextDetector::DetectAt(const cv::Mat& image, cv::Size size,
                                                 const DetOptions& options, const DbOptions& db,
                                                 StageTimes& times,
                                                 const std::stop_token& stop) const {
  Stopwatch watch;
  cv::Mat resized;
  cv::resize(image, resized, size);
  if (options.stretch_contrast)
    StretchLowContrast(resized);
  engine::Tensor input;
  input.shape = {1, 3, size.height, size.width};
  input.data.resize(static_cast<size_t>(3) * static_cast<size_t>(size.area()));
  NormalizeToPlanes(resized, family_.det_normalization, size.width, size.height, input.data.data());
  times.det_pre_ms += watch.LapMs();

  OCR_ASSIGN_OR_RETURN(engine::Tensor output, model_.Run(input, stop));
  times.det_infer_ms += watch.LapMs();
  times.det_calls += 1;
  const auto& shape = output.shape;
  if (shape.size() != 4 || shape[0] != 1 || shape[1] != 1) {
    return Internal("detection model returned an unexpected shape");
  }
  const cv::Mat prob(static_cast<int>(shape[2]), static_cast<int>(shape[3]), CV_32FC1,
                     output.data.data());
  std::vector<Quad> raw = DbPostprocess(prob, image.cols, image.rows, db);

  std::vector<Quad> boxes;
  boxes.reserve(raw.size());
  const float max_x = static_cast<float>(image.cols - 1);
  const float max_y = static_cast<float>(image.rows - 1);
  for (const Quad& q : raw) {
    Quad box = OrderClockwise(q);
    for (Point& p : box) {
      p.x = std::trunc(std::clamp(p.x, 0.0f, max_x));
      p.y = std::trunc(std::clamp(p.y, 0.0f, max_y));
    }
    if (static_cast<int>(EdgeLength(box[0], box[1])) <= 3 ||
        static_cast<int>(EdgeLength(box[0], box[3])) <= 3) {
      continue;
    }
    boxes.push_back(box);
  }
  times.det_post_ms += watch.LapMs();
  return boxes;
}

namespace {

// Median height of the boxes, in image pixels (0 when none).
float MedianBoxHeight(const std::vector<Quad>& boxes) {
  std::vector<float> heights;
  heights.reserve(boxes.size());
  for (const Quad& b : boxes)
    heights.push_back(std::min(EdgeLength(b[0], b[3]), EdgeLength(b[0], b[1])));
  if (heights.empty())
    return 0;
  auto mid = heights.begin() + static_cast<std::ptrdiff_t>(heights.size() / 2);
  std::nth_element(heights.begin(), mid, heights.end());
  return *mid;
}

}  // namespace

Result<std::vector<Quad>> TextDetector::Detect(const cv::Mat& image, const DetOptions& options,
                                               StageTimes& times,
                                               const std::stop_token& stop) const {
  const cv::Size size = DetInputSize(image.cols, image.rows, options);
  OCR_ASSIGN_OR_RETURN(std::vector<Quad> boxes,
                       DetectAt(image, size, options, family_.db, times, stop));
  if (options.limit_type == LimitType::kAuto && !boxes.empty()) {
    const double ratio = static_cast<double>(size.width) / image.cols;
    const double box_height = std::max(1.0, MedianBoxHeight(boxes) * ratio);
    const int longer = std::max(image.cols, image.rows);
    const double wanted = std::min(
        {ratio * kAutoBoxHeight / box_height, 1.0, static_cast<double>(kMaxDetSide) / longer});
    if (wanted >= ratio * 1.2) {
      DetOptions finer = options;
      finer.limit_type = LimitType::kMax;
      finer.limit_side_len = static_cast<int>(longer * wanted);
      DbOptions finer_db = family_.db;
      finer_db.unclip_ratio = family_.finer_unclip_ratio;
      const cv::Size finer_size = DetInputSize(image.cols, image.rows, finer);
      OCR_ASSIGN_OR_RETURN(boxes, DetectAt(image, finer_size, finer, finer_db, times, stop));
    }
  }
  Stopwatch watch;
  SortReadingOrder(boxes);
  times.det_post_ms += watch.LapMs();
  return boxes;
}

}  // namespace ocr::pipeline
