#include "pipeline/det/text_detector.h"

#include <utility>

#include <gtest/gtest.h>
#include <opencv2/core.hpp>

namespace ocr::pipeline {
namespace {

cv::Size Size(int w, int h, int limit = 960, LimitType type = LimitType::kMax) {
  DetOptions o;
  o.limit_side_len = limit;
  o.limit_type = type;
  return DetInputSize(w, h, o);
}

TEST(DetInputSizeTest, SmallImageKeepsScaleAndRoundsTo32) {
  EXPECT_EQ(Size(200, 60), cv::Size(192, 64));
  EXPECT_EQ(Size(10, 10), cv::Size(32, 32));  // never below 32
}

TEST(DetInputSizeTest, LargeImageScalesLongSideTo960) {
  EXPECT_EQ(Size(1920, 1080), cv::Size(960, 544));
  EXPECT_EQ(Size(1080, 1920), cv::Size(544, 960));
  EXPECT_EQ(Size(2480, 3508), cv::Size(672, 960));
}

TEST(DetInputSizeTest, HalvesRoundToEvenLikePython) {
  // 80 / 32 = 2.5 -> 2; 48 / 32 = 1.5 -> 2; 112 / 32 = 3.5 -> 4.
  EXPECT_EQ(Size(80, 48), cv::Size(64, 64));
  EXPECT_EQ(Size(112, 48), cv::Size(128, 64));
}

TEST(DetInputSizeTest, MinLimitScalesShortSideUp) {
  EXPECT_EQ(Size(100, 50, 736, LimitType::kMin), cv::Size(1472, 736));
}

TEST(DetInputSizeTest, TheLongerSideNeverPassesTheCap) {
  // 736 / 10 would make the longer side 7360: held at kMaxDetSide instead.
  EXPECT_EQ(Size(100, 10, 736, LimitType::kMin), cv::Size(4000, 384));
  EXPECT_EQ(Size(9000, 3000, 5000), cv::Size(4000, 1344));
}

TEST(DetInputSizeTest, AutoStartsAsMax) {
  EXPECT_EQ(Size(2480, 3508, 960, LimitType::kAuto), Size(2480, 3508, 960, LimitType::kMax));
  EXPECT_EQ(Size(200, 60, 960, LimitType::kAuto), cv::Size(192, 64));
}

TEST(LimitTypeTest, NamesRoundTrip) {
  for (LimitType t : {LimitType::kMax, LimitType::kMin, LimitType::kAuto})
    EXPECT_EQ(ParseLimitType(LimitTypeName(t)), t);
  EXPECT_FALSE(ParseLimitType("Max").has_value());
  EXPECT_FALSE(ParseLimitType("").has_value());
}

// A page of grey ink on grey paper: the two levels, 100 apart, with a speck of each extreme
// under 0.5% of the pixels.
cv::Mat GreyPage(int ink, int paper) {
  cv::Mat page(100, 100, CV_8UC3, cv::Scalar::all(paper));
  page(cv::Rect(10, 10, 80, 40)).setTo(cv::Scalar::all(ink));
  page.at<cv::Vec3b>(0, 0) = {0, 0, 0};
  page.at<cv::Vec3b>(0, 1) = {255, 255, 255};
  return page;
}

TEST(StretchLowContrastTest, ALowContrastPageSpansTheFullRange) {
  cv::Mat page = GreyPage(120, 220);
  StretchLowContrast(page);
  EXPECT_EQ(page.at<cv::Vec3b>(20, 20), cv::Vec3b(0, 0, 0));
  EXPECT_EQ(page.at<cv::Vec3b>(80, 80), cv::Vec3b(255, 255, 255));
}

TEST(StretchLowContrastTest, AContrastyOrFlatPageIsLeftAsItIs) {
  for (const auto& [ink, paper] : {std::pair{40, 220}, std::pair{100, 228}, std::pair{200, 203}}) {
    cv::Mat page = GreyPage(ink, paper);
    const cv::Mat before = page.clone();
    StretchLowContrast(page);
    EXPECT_EQ(cv::norm(page, before, cv::NORM_INF), 0) << ink << " on " << paper;
  }
}

}  // namespace
}  // namespace ocr::pipeline
