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
// 1.4 and 3,000 candidates for PP-OCRv6 (../shared/models/CATALOG.md). The finer pass's 2.0 was
// measured on v4 (text_detector.h).
constexpr DbOptions kV4Db = {};
constexpr DbOptions kV6Db = {
    .thresh = 0.2f, .box_thresh = 0.45f, .unclip_ratio = 1.4f, .max_candidates = 3000};

constexpr std::array<FamilySettings, 4> kFamilies = {{
    {ModelFamily::kPpocrV3,
     "ppocrv3",
     kImageNetNormalization,
     kV4Db,
     2.0f,
     kSymmetricNormalization,
     {},
     kSymmetricNormalization,
     kV2ClsHeight,
     kV2ClsWidth},
    {ModelFamily::kPpocrV4, "ppocrv4", kImageNetNormalization, kV4Db, 2.0f, kSymmetricNormalization,
     kV4Classes, kSymmetricNormalization, kV2ClsHeight, kV2ClsWidth},
    {ModelFamily::kPpocrV5, "ppocrv5", kImageNetNormalization, kV4Db, 2.0f, kSymmetricNormalization,
     kV5Classes, kImageNetNormalization, kLcnetClsHeight, kLcnetClsWidth},
    {ModelFamily::kPpocrV6, "ppocrv6", kImageNetNormalization, kV6Db, 2.0f, kSymmetricNormalization,
     kV6Classes, kImageNetNormalization, kLcnetClsHeight, kLcnetClsWidth},
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
