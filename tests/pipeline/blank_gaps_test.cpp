#include "pipeline/rec/blank_gaps.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include "pipeline/word_boxes.h"

namespace ocr::pipeline {
namespace {

// A line crop of `height` x `width` on light paper with dark blocks ("words") over [x0, x1).
cv::Mat Crop(int height, int width, const std::vector<std::pair<int, int>>& words,
             cv::Scalar paper = cv::Scalar(235, 235, 235),
             cv::Scalar ink = cv::Scalar(30, 30, 30)) {
  cv::Mat crop(height, width, CV_8UC3, paper);
  for (const auto& [x0, x1] : words)
    cv::rectangle(crop, cv::Rect(x0, height / 4, x1 - x0, height / 2), ink, cv::FILLED);
  return crop;
}

std::vector<std::pair<int, int>> Pairs(const std::vector<InkSpan>& spans) {
  std::vector<std::pair<int, int>> out;
  for (const InkSpan& s : spans)
    out.emplace_back(s.x0, s.x1);
  return out;
}

TEST(InkSpansTest, AWideBlankStretchIsCutAndTheEndsTrimmed) {
  // 20 px high: padding 5 px, a cut needs 20 blank columns.
  const cv::Mat crop = Crop(20, 400, {{10, 60}, {68, 100}, {250, 330}});
  EXPECT_EQ(Pairs(InkSpans(crop, 1.0f)), (std::vector<std::pair<int, int>>{{5, 105}, {245, 335}}));
}

TEST(InkSpansTest, WordSpacesAreNotCut) {
  // Gaps of 8 and 12 columns on a 20 px line: word spaces, and nothing to trim.
  const cv::Mat crop = Crop(20, 200, {{2, 60}, {68, 120}, {132, 198}});
  EXPECT_EQ(Pairs(InkSpans(crop, 1.0f)), (std::vector<std::pair<int, int>>{{0, 200}}));
}

TEST(InkSpansTest, LightPrintOnADarkBandIsInkToo) {
  const cv::Mat crop =
      Crop(20, 400, {{10, 100}, {250, 330}}, cv::Scalar(40, 40, 40), cv::Scalar(230, 230, 230));
  EXPECT_EQ(Pairs(InkSpans(crop, 1.0f)), (std::vector<std::pair<int, int>>{{5, 105}, {245, 335}}));
}

TEST(InkSpansTest, LightOrColouredPrintIsInk) {
  // Black text, light grey digits 10 columns on (a table's coloured citation numbers), a cut, and
  // more black text: the grey digits stay with their line.
  cv::Mat crop = Crop(20, 400, {{10, 100}, {300, 380}});
  cv::rectangle(crop, cv::Rect(110, 5, 50, 10), cv::Scalar(170, 170, 170), cv::FILLED);
  EXPECT_EQ(Pairs(InkSpans(crop, 1.0f)), (std::vector<std::pair<int, int>>{{5, 165}, {295, 385}}));
}

TEST(InkSpansTest, OneSpeckleDoesNotBridgeAGapOnALineOf16PxOrMore) {
  cv::Mat crop = Crop(20, 400, {{10, 100}, {250, 330}});
  crop.at<cv::Vec3b>(3, 170) = cv::Vec3b(20, 20, 20);
  EXPECT_EQ(InkSpans(crop, 1.0f).size(), 2u);
}

TEST(InkSpansTest, WholeWhenOffUnclearOrNotWorthIt) {
  const cv::Mat crop = Crop(20, 400, {{10, 100}, {250, 330}});
  EXPECT_EQ(Pairs(InkSpans(crop, 0.0f)), (std::vector<std::pair<int, int>>{{0, 400}}));
  // Grey on grey: 20 levels apart, no clear print.
  const cv::Mat faint =
      Crop(20, 400, {{10, 100}, {250, 330}}, cv::Scalar(140, 140, 140), cv::Scalar(120, 120, 120));
  EXPECT_EQ(Pairs(InkSpans(faint, 1.0f)), (std::vector<std::pair<int, int>>{{0, 400}}));
  // A 25-column gap spares less than a tenth of the width.
  const cv::Mat narrow_gap = Crop(20, 400, {{0, 180}, {205, 400}});
  EXPECT_EQ(Pairs(InkSpans(narrow_gap, 1.0f)), (std::vector<std::pair<int, int>>{{0, 400}}));
  const cv::Mat blank(20, 400, CV_8UC3, cv::Scalar(235, 235, 235));
  EXPECT_EQ(Pairs(InkSpans(blank, 1.0f)), (std::vector<std::pair<int, int>>{{0, 400}}));
}

// A reading of one piece: characters at the given columns, each with confidence `p`.
DecodedText Piece(const std::string& text, const std::vector<int>& columns, float p,
                  float column_width) {
  DecodedText d;
  d.text = text;
  d.column_width = column_width;
  for (size_t k = 0; k < text.size(); ++k) {
    d.char_offsets.push_back(static_cast<int>(k));
    d.columns.push_back(columns[k]);
    d.char_confidences.push_back(p);
    d.space_before.push_back(0);
    d.blanks_before.push_back(k == 0 ? 0 : 1);
  }
  d.confidence = p;
  return d;
}

TEST(JoinSpansTest, PiecesBecomeOneLineWithASpaceInEachCut) {
  const std::vector<InkSpan> spans = {{5, 105}, {245, 335}};
  const std::vector<DecodedText> pieces = {Piece("Date:", {1, 3, 5, 7, 9}, 0.9f, 10),
                                           Piece("12", {2, 4}, 0.6f, 10)};
  const DecodedText line = JoinSpans(pieces, spans);
  EXPECT_EQ(line.text, "Date: 12");
  EXPECT_NEAR(line.confidence, (5 * 0.9 + 2 * 0.6) / 7, 1e-6);
  EXPECT_FLOAT_EQ(line.column_width, 10);
  // Columns in the crop's own frame (x / 10): piece 1 starts at x 5, piece 2 at 245, the space
  // midway across the cut, (105 + 245) / 2.
  EXPECT_EQ(line.columns, (std::vector<int>{2, 4, 6, 8, 10, 18, 27, 29}));
  EXPECT_EQ(line.char_offsets, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  // The words land where they were read.
  const std::vector<WordSpan> words = SplitWords(line, 340);
  ASSERT_EQ(words.size(), 2u);
  EXPECT_EQ(words[1].text, "12");
  EXPECT_NEAR(words[1].x0, 260, 1);
}

TEST(JoinSpansTest, CjkCharactersAcrossACutAreNotSpaced) {
  // A letter-spaced label, "检  验", and a value in Latin letters after a second cut.
  DecodedText a = Piece("x", {2}, 0.9f, 5);
  a.text = "检";
  DecodedText b = a;
  b.text = "验";
  const DecodedText c = Piece("OK", {1, 2}, 0.9f, 5);
  const std::vector<InkSpan> spans = {{0, 20}, {60, 80}, {200, 220}};
  EXPECT_EQ(JoinSpans(std::vector<DecodedText>{a, b, c}, spans).text, "检验 OK");
}

TEST(JoinSpansTest, AnEmptyPieceLeavesNoTrace) {
  const std::vector<InkSpan> spans = {{0, 50}, {100, 150}, {200, 250}};
  const std::vector<DecodedText> pieces = {Piece("ab", {1, 2}, 0.8f, 5), DecodedText{},
                                           Piece("c", {3}, 0.8f, 5)};
  const DecodedText line = JoinSpans(pieces, spans);
  EXPECT_EQ(line.text, "ab c");
  EXPECT_EQ(JoinSpans(std::vector<DecodedText>(2), std::vector<InkSpan>(2)).text, "");
}

}  // namespace
}  // namespace ocr::pipeline
