#include "pipeline/word_boxes.h"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include "pipeline/geometry.h"

namespace ocr::pipeline {
namespace {

// A decoded line "ab  cd" (two spaces), one character per column 1, 3, 5, 7, 9, 11, 10 px a
// column: "ab" spans crop x [0, 50], "cd" spans [80, 130] (one column of padding each side).
DecodedText TwoWords() {
  DecodedText d;
  const std::vector<std::string> chars = {"a", "b", " ", " ", "c", "d"};
  const std::vector<float> probs = {0.9f, 0.7f, 0.5f, 0.5f, 0.6f, 1.0f};
  for (size_t i = 0; i < chars.size(); ++i) {
    d.char_offsets.push_back(static_cast<int>(d.text.size()));
    d.text += chars[i];
    d.columns.push_back(1 + 2 * static_cast<int>(i));
    d.char_confidences.push_back(probs[i]);
  }
  d.column_width = 10;
  return d;
}

Quad RotatedClockwise(float cx, float cy, float w, float h, float degrees) {
  const cv::RotatedRect r({cx, cy}, {w, h}, degrees);
  cv::Point2f p[4];
  r.points(p);
  return OrderClockwise(
      {Point{p[0].x, p[0].y}, Point{p[1].x, p[1].y}, Point{p[2].x, p[2].y}, Point{p[3].x, p[3].y}});
}

float MinX(const Quad& q) {
  return std::min({q[0].x, q[1].x, q[2].x, q[3].x});
}

float MaxX(const Quad& q) {
  return std::max({q[0].x, q[1].x, q[2].x, q[3].x});
}

float MinY(const Quad& q) {
  return std::min({q[0].y, q[1].y, q[2].y, q[3].y});
}

float MaxY(const Quad& q) {
  return std::max({q[0].y, q[1].y, q[2].y, q[3].y});
}

// Distance from p to the line through a and b.
float DistanceToLine(const Point& p, const Point& a, const Point& b) {
  const float cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
  return std::abs(cross) / EdgeLength(a, b);
}

TEST(WordBoxesTest, CtcDecodeRecordsCharacterOffsetsAndProbabilities) {
  const std::vector<std::string> charset = {"", "a", "中", " "};
  // a _ 中 " " a
  std::vector<float> probs = {0.1f, 0.8f, 0.05f, 0.05f, 0.9f, 0.05f, 0.03f, 0.02f, 0.1f, 0.1f,
                              0.7f, 0.1f, 0.1f,  0.1f,  0.1f, 0.7f,  0.1f,  0.6f,  0.2f, 0.1f};
  const DecodedText d = CtcGreedyDecode(probs, 5, 4, charset);
  EXPECT_EQ(d.text, "a中 a");
  EXPECT_EQ(d.char_offsets, (std::vector<int>{0, 1, 4, 5}));
  ASSERT_EQ(d.char_confidences.size(), 4u);
  EXPECT_FLOAT_EQ(d.char_confidences[1], 0.7f);
}

TEST(WordBoxesTest, SplitsOnSpacesWithAColumnOfPadding) {
  const std::vector<WordSpan> words = SplitWords(TwoWords(), 300);
  ASSERT_EQ(words.size(), 2u);
  EXPECT_EQ(words[0].text, "ab");
  EXPECT_NEAR(words[0].confidence, 0.8f, 1e-5);
  EXPECT_FLOAT_EQ(words[0].x0, 0);
  EXPECT_FLOAT_EQ(words[0].x1, 50);
  EXPECT_EQ(words[1].text, "cd");
  EXPECT_NEAR(words[1].confidence, 0.8f, 1e-5);
  EXPECT_FLOAT_EQ(words[1].x0, 80);
  EXPECT_FLOAT_EQ(words[1].x1, 130);
  // Clamped to the crop.
  const std::vector<WordSpan> narrow = SplitWords(TwoWords(), 100);
  EXPECT_FLOAT_EQ(narrow[1].x1, 100);
  DecodedText first = TwoWords();
  first.columns[0] = 0;  // would start at -10
  EXPECT_FLOAT_EQ(SplitWords(first, 300)[0].x0, 0);
}

TEST(WordBoxesTest, TextWithoutSpacesIsOneWord) {
  DecodedText d;
  for (const char* c : {"中", "文", "字"}) {
    d.char_offsets.push_back(static_cast<int>(d.text.size()));
    d.text += c;
    d.columns.push_back(static_cast<int>(d.columns.size()) * 3);
    d.char_confidences.push_back(0.9f);
  }
  d.column_width = 8;
  const auto words = SplitWords(d, 200);
  ASSERT_EQ(words.size(), 1u);
  EXPECT_EQ(words[0].text, "中文字");
  EXPECT_TRUE(SplitWords(DecodedText{}, 200).empty());
}

TEST(WordBoxesTest, AxisAlignedBoxMapsWordsToTheirXRanges) {
  const Quad box = {Point{100, 50}, Point{400, 50}, Point{400, 90}, Point{100, 90}};
  const std::vector<Word> words = LocateWords(TwoWords(), box, false);
  ASSERT_EQ(words.size(), 2u);
  const Quad& a = words[0].box;
  EXPECT_NEAR(a[0].x, 100, 0.01);
  EXPECT_NEAR(a[0].y, 50, 0.01);
  EXPECT_NEAR(a[1].x, 150, 0.01);
  EXPECT_NEAR(a[1].y, 50, 0.01);
  EXPECT_NEAR(a[2].x, 150, 0.01);
  EXPECT_NEAR(a[2].y, 90, 0.01);
  EXPECT_NEAR(a[3].x, 100, 0.01);
  EXPECT_NEAR(a[3].y, 90, 0.01);
  EXPECT_NEAR(MinX(words[1].box), 180, 0.01);
  EXPECT_NEAR(MaxX(words[1].box), 230, 0.01);
}

TEST(WordBoxesTest, RotatedBoxPutsWordCornersOnItsTopAndBottomEdges) {
  const Quad box = RotatedClockwise(300, 300, 300, 40, 20);
  const std::vector<Word> words = LocateWords(TwoWords(), box, false);
  ASSERT_EQ(words.size(), 2u);
  for (const Word& w : words) {
    EXPECT_LT(DistanceToLine(w.box[0], box[0], box[1]), 0.05f) << w.text;
    EXPECT_LT(DistanceToLine(w.box[1], box[0], box[1]), 0.05f) << w.text;
    EXPECT_LT(DistanceToLine(w.box[2], box[3], box[2]), 0.05f) << w.text;
    EXPECT_LT(DistanceToLine(w.box[3], box[3], box[2]), 0.05f) << w.text;
  }
  // Along the top edge: "ab" starts at the box's top-left corner, "cd" about 80 px further.
  EXPECT_NEAR(EdgeLength(words[0].box[0], box[0]), 0, 1.5);
  EXPECT_NEAR(EdgeLength(words[1].box[0], box[0]), 80, 1.5);
}

TEST(WordBoxesTest, FlippedCropPutsTheFirstWordAtTheRightEnd) {
  const Quad box = {Point{100, 50}, Point{400, 50}, Point{400, 90}, Point{100, 90}};
  const std::vector<Word> words = LocateWords(TwoWords(), box, true);
  ASSERT_EQ(words.size(), 2u);
  EXPECT_NEAR(MinX(words[0].box), 350, 0.01);
  EXPECT_NEAR(MaxX(words[0].box), 400, 0.01);
  EXPECT_NEAR(MinX(words[1].box), 270, 0.01);
  EXPECT_NEAR(MaxX(words[1].box), 320, 0.01);
  // Reading order: the word's top-left is the image's bottom-right.
  EXPECT_NEAR(words[0].box[0].x, 400, 0.01);
  EXPECT_NEAR(words[0].box[0].y, 90, 0.01);
  EXPECT_NEAR(MinY(words[0].box), 50, 0.01);
  EXPECT_NEAR(MaxY(words[0].box), 90, 0.01);
}

TEST(WordBoxesTest, TallCropStacksWordsAlongTheLongSide) {
  const Quad box = {Point{100, 100}, Point{140, 100}, Point{140, 400}, Point{100, 400}};
  ASSERT_TRUE(CropGeometryOf(box).rotated90);
  const std::vector<Word> words = LocateWords(TwoWords(), box, false);
  ASSERT_EQ(words.size(), 2u);
  EXPECT_NEAR(MinY(words[0].box), 100, 0.01);
  EXPECT_NEAR(MaxY(words[0].box), 150, 0.01);
  EXPECT_NEAR(MinY(words[1].box), 180, 0.01);
  EXPECT_NEAR(MaxY(words[1].box), 230, 0.01);
  for (const Word& w : words) {
    EXPECT_NEAR(MinX(w.box), 100, 0.01) << w.text;
    EXPECT_NEAR(MaxX(w.box), 140, 0.01) << w.text;
  }
}

TEST(WordBoxesTest, CropGeometryMatchesCropTextLine) {
  const cv::Mat image(500, 500, CV_8UC3, cv::Scalar(255, 255, 255));
  for (const Quad& box : {Quad{Point{100, 100}, Point{140, 100}, Point{140, 400}, Point{100, 400}},
                          RotatedClockwise(250, 250, 300, 40, 20)}) {
    const cv::Mat crop = CropTextLine(image, box);
    const CropGeometry g = CropGeometryOf(box);
    EXPECT_EQ(crop.cols, g.width());
    EXPECT_EQ(crop.rows, g.height());
  }
}

}  // namespace
}  // namespace ocr::pipeline
