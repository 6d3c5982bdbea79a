// Detected lines measured by their ink (internal/line_ink.h) and cut at a table's column gaps
// (internal/column_gaps.h), as layout reads an OCR'd page.
#include "layout/internal/line_ink.h"

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include "layout/column_gaps.h"

namespace ocr::layout::internal {
namespace {

using pipeline::Quad;
using pipeline::TextLine;
using pipeline::Word;

Quad Box(float x0, float y0, float x1, float y1) {
  return {pipeline::Point{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
}

void ExpectSpan(const Quad& q, float x0, float x1) {
  EXPECT_FLOAT_EQ(q[0].x, x0);
  EXPECT_FLOAT_EQ(q[3].x, x0);
  EXPECT_FLOAT_EQ(q[1].x, x1);
  EXPECT_FLOAT_EQ(q[2].x, x1);
}

// A white page with two dark blocks of "ink" in one detected line, whose box reaches 20 px past
// them on either side, as the detector's margin does.
struct InkPage {
  cv::Mat page{60, 200, CV_8UC3, cv::Scalar(255, 255, 255)};
  TextLine line{"ab",
                0.9F,
                Box(20, 10, 180, 50),
                {Word{"a", 0.9F, Box(20, 10, 95, 50)}, Word{"b", 0.9F, Box(95, 10, 180, 50)}}};

  InkPage() {
    cv::rectangle(page, cv::Point(40, 20), cv::Point(80, 40), cv::Scalar(0, 0, 0), cv::FILLED);
    cv::rectangle(page, cv::Point(110, 22), cv::Point(150, 38), cv::Scalar(0, 0, 0), cv::FILLED);
  }
};

TEST(FitToInkTest, LinesAndWordsNarrowToTheirInk) {
  const InkPage p;
  const InkLines ink = FitToInk({p.line}, p.page);
  ASSERT_EQ(ink.lines.size(), 1U);
  ExpectSpan(ink.lines[0].box, 40, 151);
  EXPECT_FLOAT_EQ(ink.lines[0].box[0].y, 10);  // only along the line
  EXPECT_FLOAT_EQ(ink.lines[0].box[3].y, 50);
  ASSERT_EQ(ink.lines[0].words.size(), 2U);
  ExpectSpan(ink.lines[0].words[0].box, 40, 81);
  ExpectSpan(ink.lines[0].words[1].box, 110, 151);
  EXPECT_EQ(ink.lines[0].text, "ab");
  EXPECT_DOUBLE_EQ(ink.text_height, 40 / kBoxPerTextHeight);  // from the box's height
}

// A recognizer's word boxes reach a column past their letters: across a narrow word space they
// overlap, and the space between them is where the ink is blank.
TEST(FitToInkTest, WordBoxesThatOverlapArePartedAtTheSpace) {
  InkPage p;
  p.line.words[0].box = Box(20, 10, 120, 50);  // reaches into the second word's ink
  p.line.words[1].box = Box(70, 10, 180, 50);  // and it into the first's
  const InkLines ink = FitToInk({p.line}, p.page);
  ExpectSpan(ink.lines[0].words[0].box, 40, 81);
  ExpectSpan(ink.lines[0].words[1].box, 110, 151);
}

TEST(FitToInkTest, LightTextOnADarkFillIsInkToo) {
  InkPage p;
  cv::bitwise_not(p.page, p.page);
  const InkLines ink = FitToInk({p.line}, p.page);
  ExpectSpan(ink.lines[0].box, 40, 151);
  ExpectSpan(ink.lines[0].words[1].box, 110, 151);
}

TEST(FitToInkTest, BlankBoxesAndTurnedLinesStayAsTheyAre) {
  const InkPage p;
  TextLine blank = p.line;
  blank.box = Box(20, 52, 180, 58);  // paper only
  TextLine turned = p.line;
  turned.box = {pipeline::Point{180, 50}, {20, 50}, {20, 10}, {180, 10}};  // upside down
  const InkLines ink = FitToInk({blank, turned}, p.page);
  ExpectSpan(ink.lines[0].box, 20, 180);
  EXPECT_FLOAT_EQ(ink.lines[1].box[0].x, 180);
  EXPECT_FLOAT_EQ(ink.lines[1].box[1].x, 20);
  EXPECT_TRUE(std::isinf(FitToInk({turned}, p.page).text_height));
}

TEST(FitToInkTest, ASlantedLineNarrowsAlongItsSlant) {
  const InkPage p;
  TextLine slanted = p.line;
  slanted.box = {pipeline::Point{20, 10}, {180, 12}, {180, 52}, {20, 50}};
  const InkLines ink = FitToInk({slanted}, p.page);
  const Quad& q = ink.lines[0].box;
  EXPECT_FLOAT_EQ(q[0].x, 40);
  EXPECT_FLOAT_EQ(q[0].y, 10.25F);  // 20 px along a slope of 2 in 160
  EXPECT_FLOAT_EQ(q[1].x, 151);
  EXPECT_FLOAT_EQ(q[1].y, 11.6375F);
}

// Five rows of a dense statistical table as a detector reads them: each row one line, its label
// apart, its two numbers joined by a gap narrower than the detector's break but as wide as half
// the text's height, the same gap in every row.
std::vector<TextLine> NumberRows(float slope) {
  std::vector<TextLine> lines;
  for (int r = 0; r < 5; ++r) {
    const float y = 30.0F * static_cast<float>(r);
    const auto at = [&](float x0, float x1) {
      return Quad{pipeline::Point{x0, y + slope * x0},
                  {x1, y + slope * x1},
                  {x1, y + 20 + slope * x1},
                  {x0, y + 20 + slope * x0}};
    };
    lines.push_back(
        {"State " + std::to_string(r),
         0.95F,
         at(0, 90),
         {Word{"State", 0.95F, at(0, 50)}, Word{std::to_string(r), 0.95F, at(58, 90)}}});
    lines.push_back({"1,234 56.7",
                     0.9F,
                     at(150, 262),
                     {Word{"1,234", 0.9F, at(150, 200)}, Word{"56.7", 0.9F, at(212, 262)}}});
  }
  return lines;
}

TEST(ColumnGapsTest, NumbersInAColumnOfWhitespaceAreCutApart) {
  const std::vector<TextLine> lines = NumberRows(0);
  const ColumnCuts cuts = FindColumnGaps(lines, 20, false);
  ASSERT_EQ(cuts.size(), lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i)
    EXPECT_EQ(cuts[i], (i % 2 == 1 ? std::vector<std::size_t>{1} : std::vector<std::size_t>{}))
        << lines[i].text;
  // A gap of half a height is a column gap only for text that tall or smaller.
  EXPECT_EQ(FindColumnGaps(lines, 30, false)[1], std::vector<std::size_t>{});
}

TEST(ColumnGapsTest, ASlantedLineIsCutAlongItsSlant) {
  std::vector<TextLine> lines = NumberRows(0.02F);
  const ColumnCuts cuts = FindColumnGaps(lines, 20, false);
  ASSERT_EQ(cuts[1], std::vector<std::size_t>{1});
  const std::vector<TextLine> cut = CutLines(lines, cuts);
  ASSERT_EQ(cut.size(), 15U);
  EXPECT_EQ(cut[1].text, "1,234");
  EXPECT_EQ(cut[2].text, "56.7");
  EXPECT_FLOAT_EQ(cut[2].confidence, 0.9F);
  // The part's box runs from its word's left edge to its right one, on the line's slant.
  EXPECT_FLOAT_EQ(cut[2].box[0].x, 212);
  EXPECT_FLOAT_EQ(cut[2].box[0].y, 0.02F * 212);
  EXPECT_FLOAT_EQ(cut[2].box[1].x, 262);
  EXPECT_FLOAT_EQ(cut[2].box[1].y, 0.02F * 262);
  ASSERT_EQ(cut[2].words.size(), 1U);
  EXPECT_EQ(cut[0].text, "State 0");  // a word space beside letters stays
}

}  // namespace
}  // namespace ocr::layout::internal
