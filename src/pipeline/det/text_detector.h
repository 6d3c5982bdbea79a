// Text detection stage: resize and normalize, run the DB model, post-process, order boxes.
// Thread-safety: Detect() is const and safe to call concurrently.
#pragma once

#include <optional>
#include <stop_token>
#include <string_view>
#include <vector>

#include <opencv2/core/mat.hpp>

#include "common/status.h"
#include "engine/model.h"
#include "pipeline/det/db_postprocess.h"
#include "pipeline/model_family.h"
#include "pipeline/types.h"

namespace ocr::pipeline {

enum class LimitType {
  kMax,  // scale down so the longer side is at most limit_side_len (the reference's)
  kMin,  // scale up so the shorter side is at least limit_side_len (PaddleOCR 3.x's)
  // As kMax; then, where the text found is small, a second pass at the scale that makes it
  // kAutoBoxHeight tall (see TextDetector::Detect).
  kAuto,
};

// "max", "min", "auto" (the names the flags and the API take); nullopt for any other.
std::optional<LimitType> ParseLimitType(std::string_view name);
std::string_view LimitTypeName(LimitType type);

// Bounds on the detector's input. The longer side never exceeds kMaxDetSide, whatever the limit
// asks (PaddleOCR 3.x's max_side_limit): a 4000 px side already costs about 17x the default's
// detection time and 1 GB of activations.
inline constexpr int kMinDetLimitSideLen = 32;
inline constexpr int kMaxDetSide = 4000;

// kAuto's second pass. DB detection finds lines best when their boxes are about 24 detector
// pixels tall; at 960 px a dense page's boxes are 12 to 17 (docs/benchmarks/accuracy.md, "Detection
// resolution"). The finer map of the second pass draws tighter boxes (0.8 of the text's height
// against 1.2 to 1.4 at 960 px, measured on the synthetic pages), which crop ascenders and the
// margin the recognizer reads word gaps from, so its boxes grow by a larger unclip ratio
// (FamilySettings::finer_unclip_ratio: on v4, 2.5 read the synthetic pages better still, but its
// boxes reach a ruled table's rules and the table is lost (tests/tables); 2.0 keeps both).
inline constexpr double kAutoBoxHeight = 24;

struct DetOptions {
  int limit_side_len = 960;
  LimitType limit_type = LimitType::kAuto;
  // Stretch a low-contrast page to the full range before detection (StretchLowContrast). Off: the
  // reference pipeline's input.
  bool stretch_contrast = true;
};

// A page whose ink and paper lie closer than kLowContrastRange of 255 levels apart (its
// luminance from the 0.5th to the 99.5th percentile) is stretched linearly to the full range.
// The DB detector's map is faint on such pages; on the synthetic pages every low_contrast one
// spans 32 to 94 levels and every other page 146 or more (docs/benchmarks/accuracy.md, "Low
// contrast and blur"). Only the detector's input: stretching the recognizer's crops of such pages
// read worse (a turned line read by its glyphs alone, faint print, is stretched: pipeline.cpp).
inline constexpr int kLowContrastRange = 128;

// Stretches CV_8UC3 `image` in place when its luminance range is under kLowContrastRange (and
// not flat: at least 8 levels); leaves it as it is otherwise.
void StretchLowContrast(cv::Mat& image);

// The detector's (first) input size for an image: scaled per the limit (kAuto as kMax), the longer
// side then at most kMaxDetSide, both sides rounded to the nearest multiple of 32 (at least 32),
// as PaddleOCR's DetResizeForTest does.
cv::Size DetInputSize(int width, int height, const DetOptions& options);

class TextDetector {
 public:
  // `family`: the detector's row of model_family.h (its input's normalization and DB
  // post-processing). REQUIRES: `model` outlives this detector.
  TextDetector(const engine::Model& model, const FamilySettings& family)
      : model_(model), family_(family) {}

  // Boxes in `image` pixels, ordered clockwise from the top-left, clipped to the image, boxes
  // with a side of 3 px or less dropped, sorted into reading order. With LimitType::kAuto, when
  // the first pass's median box is under kAutoBoxHeight detector pixels, the page is detected
  // again at the scale that brings it there, at most the image's own size and kMaxDetSide, and
  // only when that is at least 1.2 times the first scale; the second pass's boxes are kept.
  // REQUIRES: image is CV_8UC3 and not empty.
  // Errors: kCancelled once `stop` is requested.
  Result<std::vector<Quad>> Detect(const cv::Mat& image, const DetOptions& options,
                                   StageTimes& times, const std::stop_token& stop = {}) const;

 private:
  // One pass at the detector input `size`, post-processed with `db`: boxes in `image` pixels, not
  // yet ordered.
  Result<std::vector<Quad>> DetectAt(const cv::Mat& image, cv::Size size, const DetOptions& options,
                                     const DbOptions& db, StageTimes& times,
                                     const std::stop_token& stop) const;

  const engine::Model& model_;
  const FamilySettings& family_;
};

}  // namespace ocr::pipeline
