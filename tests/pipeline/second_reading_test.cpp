#include "pipeline/rec/second_reading.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ocr::pipeline {
namespace {

DecodedText Reading(const std::string& text, float confidence, float column_width = 4.0f) {
  DecodedText d;
  d.text = text;
  d.confidence = confidence;
  d.column_width = column_width;
  return d;
}

TEST(SecondReadingTest, OnlySmallLinesKeptWithLittleConfidenceAreReadAgain) {
  const std::vector<cv::Mat> crops = {
      cv::Mat(kSmallLineHeight - 1, 200, CV_8UC3),  // small and unsure: read again
      cv::Mat(kSmallLineHeight - 1, 200, CV_8UC3),  // small and sure
      cv::Mat(kSmallLineHeight, 200, CV_8UC3),      // unsure, but large enough
      cv::Mat(12, 90, CV_8UC3),                     // small and just kept: read again
      cv::Mat(12, 90, CV_8UC3),                     // small and dropped: not read again
  };
  const std::vector<DecodedText> readings = {
      Reading("callthe", kUnsureConfidence - 0.01f), Reading("call the", kUnsureConfidence),
      Reading("cal1", 0.6f), Reading("ca11", 0.5f), Reading("口", 0.49f)};
  EXPECT_EQ(LinesToReadAgain(crops, readings, 0.5f), (std::vector<size_t>{0, 3}));
}

TEST(SecondReadingTest, TheCropIsWidenedAndKeepsItsHeight) {
  const cv::Mat widened = Widened(cv::Mat(16, 200, CV_8UC3, cv::Scalar(200, 200, 200)));
  EXPECT_EQ(widened.rows, 16);
  EXPECT_EQ(widened.cols, 250);
  EXPECT_EQ(widened.type(), CV_8UC3);
}

TEST(SecondReadingTest, TheSurerReadingIsKeptWithItsColumnsInTheCropsPixels) {
  DecodedText first = Reading("callthe", 0.8f);
  KeepTheSurer(first, Reading("call the", 0.95f, 4.0f), 200, 250);
  EXPECT_EQ(first.text, "call the");
  EXPECT_FLOAT_EQ(first.confidence, 0.95f);
  // A column of the widened crop is 4 of its pixels: 3.2 of the crop's.
  EXPECT_FLOAT_EQ(first.column_width, 3.2f);

  DecodedText sure = Reading("callthe", 0.8f);
  KeepTheSurer(sure, Reading("ca11 the", 0.7f), 200, 250);
  EXPECT_EQ(sure.text, "callthe");
  EXPECT_FLOAT_EQ(sure.column_width, 4.0f);
}

}  // namespace
}  // namespace ocr::pipeline
