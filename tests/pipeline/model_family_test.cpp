#include "pipeline/model_family.h"

#include <gtest/gtest.h>

namespace ocr::pipeline {
namespace {

TEST(ModelFamilyTest, NamesRoundTrip) {
  for (const ModelFamily f : {ModelFamily::kPpocrV3, ModelFamily::kPpocrV4, ModelFamily::kPpocrV5,
                              ModelFamily::kPpocrV6}) {
    EXPECT_EQ(ParseModelFamily(ModelFamilyName(f)), f);
    EXPECT_EQ(SettingsOf(f).family, f);
  }
  EXPECT_EQ(ParseModelFamily("ppocrv7"), std::nullopt);
  EXPECT_EQ(ParseModelFamily("PPOCRV4"), std::nullopt);
}

TEST(ModelFamilyTest, PublishersDbSettings) {
  // PaddleOCR 2.x's for v3 and v4 (and 3.x's for v5); PaddlePaddle's for v6 (CATALOG.md) but the
  // unclip ratio, measured (model_family.cpp).
  for (const ModelFamily f :
       {ModelFamily::kPpocrV3, ModelFamily::kPpocrV4, ModelFamily::kPpocrV5}) {
    const DbOptions& db = SettingsOf(f).db;
    EXPECT_FLOAT_EQ(db.thresh, 0.3f);
    EXPECT_FLOAT_EQ(db.box_thresh, 0.6f);
    EXPECT_FLOAT_EQ(db.unclip_ratio, 1.5f);
    EXPECT_EQ(db.max_candidates, 1000);
  }
  const DbOptions& v6 = SettingsOf(ModelFamily::kPpocrV6).db;
  EXPECT_FLOAT_EQ(v6.thresh, 0.2f);
  EXPECT_FLOAT_EQ(v6.box_thresh, 0.45f);
  EXPECT_FLOAT_EQ(v6.unclip_ratio, 1.5f);  // the publisher's 1.4 cuts what our readers need
  EXPECT_EQ(v6.max_candidates, 3000);
  EXPECT_FLOAT_EQ(SettingsOf(ModelFamily::kPpocrV4).finer_unclip_ratio, 2.0f);
  EXPECT_FLOAT_EQ(SettingsOf(ModelFamily::kPpocrV6).finer_unclip_ratio, 1.8f);
}

TEST(ModelFamilyTest, RecognizerFamilyByClassCountThenDictionaryName) {
  EXPECT_EQ(RecognizerFamily(6625, "ppocr_keys_v1.txt"), ModelFamily::kPpocrV4);
  EXPECT_EQ(RecognizerFamily(18385, "ppocrv5_dict.txt"), ModelFamily::kPpocrV5);
  EXPECT_EQ(RecognizerFamily(6906, "ppocrv6_tiny_dict.txt"), ModelFamily::kPpocrV6);
  EXPECT_EQ(RecognizerFamily(18710, "anything.txt"), ModelFamily::kPpocrV6);
  // A language recognizer: its count is its own, its dictionary says its generation.
  EXPECT_EQ(RecognizerFamily(838, "ppocrv5_latin_dict.txt"), ModelFamily::kPpocrV5);
  EXPECT_EQ(RecognizerFamily(97, "en_dict.txt"), ModelFamily::kPpocrV4);
}

TEST(ModelFamilyTest, ClassifierFamilyByItsInput) {
  EXPECT_EQ(ClassifierFamily(-1, -1), ModelFamily::kPpocrV4);
  EXPECT_EQ(ClassifierFamily(48, 192), ModelFamily::kPpocrV4);
  EXPECT_EQ(ClassifierFamily(80, 160), ModelFamily::kPpocrV5);
  // v4's classifier takes [-1, 1]; PP-LCNet's ImageNet's statistics.
  EXPECT_FLOAT_EQ(SettingsOf(ModelFamily::kPpocrV4).cls_normalization.mean[0], 0.5f);
  EXPECT_FLOAT_EQ(SettingsOf(ModelFamily::kPpocrV5).cls_normalization.mean[0], 0.485f);
}

}  // namespace
}  // namespace ocr::pipeline
