#include "pipeline/model_family.h"

#include <algorithm>
#include <array>

namespace ocr::pipeline {
namespace {

// Published recognizers' class counts: blank + dictionary lines + space.
constexpr std::array<std::int64_t, 1> kV4Classes = {6625};         // ppocr_keys_v1.txt
constexpr std::array<std::int64_t, 1> kV5Classes = {18385};        // ppocrv5_dict.txt
constexpr std::array<std::int64_t, 2> kV6Classes = {6906, 18710};  // tiny; small and medium

// The mobile v2 direction classifier (v3, v4) was trained at 48 x 192 on [-1, 1] input;
// PP-LCNet's textline orientation models (v5, v6) take 80 x 160 with ImageNet's statistics.
constexpr int kV2ClsHeight = 48;
constexpr int kV2ClsWidth = 192;
constexpr int kLcnetClsHeight = 80;
constexpr int kLcnetClsWidth = 160;

// PP-OCRv3 and v4 share PaddleOCR 2.x's DB settings (thresh 0.3, box 0.6, unclip 1.5, 1,000
// candidates). PaddleOCR 3.x publishes the same for PP-OCRv5, and thresh 0.2, box 0.45, unclip
// 1.4 and 3,000 candidates for PP-OCRv6 (../shared/models/CATALOG.md). Our v6 row keeps the
// publisher's thresholds and cap, which find more of a page's words, but grows boxes by 1.5: our
// recognizers read a line's edges (superscripts, descenders, a word gap's margin) and 1.4's boxes
// cut them (docs/benchmarks/accuracy.md, "PP-OCRv6's detector settings": the v6 tiny set on the
// 149 FUNSD forms word F1 0.8878 at 1.4, 0.8893 at 1.5, 0.8909 at 1.6; the synthetic pages'
// detection F1 0.9891, 0.9888, 0.9862; the photos' page CER 0.0473, 0.0435, 0.0444). The finer
// pass's 2.0 was measured on v4 (text_detector.h); v6's map at its lower threshold is wider, so its
// finer boxes grow less: 1.8 (the synthetic pages' F1 0.9888 at 2.0, 0.9908 at 1.9, 0.9927 at 1.8;
// 1.7's 0.9934 is within their noise, and the larger margin keeps what word gaps and ascenders
// the recognizer reads).
constexpr DbOptions kV4Db = {};
constexpr DbOptions kV6Db = {
    .thresh = 0.2f, .box_thresh = 0.45f, .unclip_ratio = 1.5f, .max_candidates = 3000};

constexpr std::array<FamilySettings, 4> kFamilies = {{
    {.family = ModelFamily::kPpocrV3,
     .name = "ppocrv3",
     .det_normalization = kImageNetNormalization,
     .db = kV4Db,
     .finer_unclip_ratio = 2.0f,
     .rec_normalization = kSymmetricNormalization,
     .class_counts = {},  // v4's recognizers read alike: 6,625 is told as v4
     .cls_normalization = kSymmetricNormalization,
     .cls_height = kV2ClsHeight,
     .cls_width = kV2ClsWidth},
    {.family = ModelFamily::kPpocrV4,
     .name = "ppocrv4",
     .det_normalization = kImageNetNormalization,
     .db = kV4Db,
     .finer_unclip_ratio = 2.0f,
     .rec_normalization = kSymmetricNormalization,
     .class_counts = kV4Classes,
     .cls_normalization = kSymmetricNormalization,
     .cls_height = kV2ClsHeight,
     .cls_width = kV2ClsWidth},
    {.family = ModelFamily::kPpocrV5,
     .name = "ppocrv5",
     .det_normalization = kImageNetNormalization,
     .db = kV4Db,
     .finer_unclip_ratio = 2.0f,
     .rec_normalization = kSymmetricNormalization,
     .class_counts = kV5Classes,
     .cls_normalization = kImageNetNormalization,
     .cls_height = kLcnetClsHeight,
     .cls_width = kLcnetClsWidth},
    {.family = ModelFamily::kPpocrV6,
     .name = "ppocrv6",
     .det_normalization = kImageNetNormalization,
     .db = kV6Db,
     .finer_unclip_ratio = 1.8f,
     .rec_normalization = kSymmetricNormalization,
     .class_counts = kV6Classes,
     .cls_normalization = kImageNetNormalization,
     .cls_height = kLcnetClsHeight,
     .cls_width = kLcnetClsWidth},
}};
}  // namespace

const FamilySettings& SettingsOf(ModelFamily family) {
  return kFamilies[static_cast<size_t>(family)];
}

std::optional<ModelFamily> ParseModelFamily(std::string_view name) {
  for (const FamilySettings& f : kFamilies) {
    if (f.name == name)
      return f.family;
  }
  return std::nullopt;
}

std::string_view ModelFamilyName(ModelFamily family) {
  return SettingsOf(family).name;
}

std::string_view ModelFamilyNames() {
  return "ppocrv3, ppocrv4, ppocrv5 or ppocrv6";
}

ModelFamily RecognizerFamily(std::int64_t classes, std::string_view dictionary_name) {
  for (const FamilySettings& f : kFamilies) {
    if (std::find(f.class_counts.begin(), f.class_counts.end(), classes) != f.class_counts.end())
      return f.family;
  }
  for (const FamilySettings& f : kFamilies) {
    if (dictionary_name.find(f.name) != std::string_view::npos)
      return f.family;
  }
  return ModelFamily::kPpocrV4;
}

ModelFamily ClassifierFamily(std::int64_t height, std::int64_t width) {
  return height == kLcnetClsHeight && width == kLcnetClsWidth ? ModelFamily::kPpocrV5
                                                              : ModelFamily::kPpocrV4;
}

}  // namespace ocr::pipeline
