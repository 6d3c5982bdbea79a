#include "pipeline/turned_lines.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include "pipeline/geometry.h"
#include "support/hand_lines.h"

namespace ocr::pipeline {
namespace {

using testing::Box;

// A page of 11 px text: `lines` horizontal lines of Hershey glyphs, each under its box as the
// detector draws it, and a number written along the right margin, turned to read bottom to top,
// under no box.
struct Page {
  cv::Mat image;
  std::vector<Quad> boxes;
  cv::Rect number;  // where the turned number's ink lies
};

Page MakePage(int lines, const std::string& number, double number_scale = 0.5) {
  Page page;
  page.image = cv::Mat(60 + 24 * lines, 520, CV_8UC3, cv::Scalar(235, 235, 235));
  const std::string text = "Invoice 2031 paid in full";
  int baseline = 0;
  const cv::Size size = cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, 0.5, 1, &baseline);
  for (int i = 0; i < lines; ++i) {
    const int base = 40 + 24 * i;
    cv::putText(page.image, text, cv::Point(20, base), cv::FONT_HERSHEY_SIMPLEX, 0.5,
                cv::Scalar(30, 30, 30), 1);
    page.boxes.push_back(Box(16, static_cast<float>(base - 13), static_cast<float>(24 + size.width),
                             static_cast<float>(base + 3)));
  }
  if (!number.empty()) {
    const cv::Size numeral =
        cv::getTextSize(number, cv::FONT_HERSHEY_SIMPLEX, number_scale, 1, &baseline);
    cv::Mat strip(20, numeral.width + 8, CV_8UC3, cv::Scalar(235, 235, 235));
    cv::putText(strip, number, cv::Point(4, 15), cv::FONT_HERSHEY_SIMPLEX, number_scale,
                cv::Scalar(30, 30, 30), 1);
    cv::rotate(strip, strip, cv::ROTATE_90_COUNTERCLOCKWISE);
    page.number = cv::Rect(480, 60, strip.cols, strip.rows);
    strip.copyTo(page.image(page.number));
  }
  return page;
}

TEST(TurnedLinesTest, AColumnOfGlyphsNoBoxCoversIsFound) {
  const Page page = MakePage(8, "PM90967162");
  const std::vector<TurnedRegion> regions = TurnedLineRegions(page.image, page.boxes);
  ASSERT_EQ(regions.size(), 1u);
  // The number lies inside, with room around it for the detector.
  EXPECT_EQ(regions[0].rect & page.number, page.number);
  EXPECT_GT(regions[0].rect.width, page.number.width);
  EXPECT_LT(regions[0].rect.width, 4 * page.number.width);
  // Its text is as high as its glyphs are wide across the column.
  EXPECT_NEAR(regions[0].text_height, 11, 2);
}

TEST(TurnedLinesTest, ANumberInSmallerPrintThanTheTextIsFound) {
  // Digits 9 px high beside 11 px text, with a speck beside them that joins their column of ink:
  // the region holds the number, and its text height is the digits', not the page's.
  Page page = MakePage(8, "90396037", 0.4);
  cv::circle(page.image, cv::Point(page.number.x + page.number.width + 3, page.number.y + 30), 1,
             cv::Scalar(60, 60, 60), -1);
  const std::vector<TurnedRegion> regions = TurnedLineRegions(page.image, page.boxes);
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_EQ(regions[0].rect & page.number, page.number);
  EXPECT_NEAR(regions[0].text_height, 9, 1);
}

TEST(TurnedLinesTest, RulesSpecksAndReadLinesAreNot) {
  Page page = MakePage(8, "");
  // A vertical rule, a scanner's streak with specks beside it, a column of specks.
  cv::line(page.image, cv::Point(300, 20), cv::Point(300, 200), cv::Scalar(40, 40, 40), 2);
  cv::line(page.image, cv::Point(400, 10), cv::Point(400, 220), cv::Scalar(150, 150, 150), 1);
  for (int y = 20; y < 220; y += 9) {
    cv::circle(page.image, cv::Point(404 + (y % 3), y), 1, cv::Scalar(60, 60, 60), -1);
    cv::circle(page.image, cv::Point(460, y), 1, cv::Scalar(60, 60, 60), -1);
  }
  EXPECT_TRUE(TurnedLineRegions(page.image, page.boxes).empty());
}

TEST(TurnedLinesTest, NoSearchWithoutBoxesOrOnATurnedPage) {
  const Page page = MakePage(8, "PM90967162");
  EXPECT_TRUE(TurnedLineRegions(page.image, {}).empty());
  // Half the boxes tall: the page itself is turned, and detection found its lines.
  std::vector<Quad> boxes = page.boxes;
  for (int i = 0; i < 8; ++i)
    boxes.push_back(Box(300.0f + 14 * i, 20, 312.0f + 14 * i, 200));
  EXPECT_TRUE(TurnedLineRegions(page.image, boxes).empty());
}

TEST(TurnedLinesTest, BoxesFoundTurnedComeBackToThePage) {
  // A 40 x 120 region at (100, 200); turned it is 120 x 40, and a line across it, 10 to 110 by
  // 5 to 35, is the column 105 to 135 by 210 to 310 of the page, either way it was turned.
  const cv::Rect region(100, 200, 40, 120);
  const Quad line = Box(10, 5, 110, 35);
  for (const bool clockwise : {true, false}) {
    const Quad page = FromTurnedRegion(line, region, clockwise);
    EXPECT_FLOAT_EQ(page[0].x, 105) << clockwise;
    EXPECT_FLOAT_EQ(page[0].y, 210) << clockwise;
    EXPECT_FLOAT_EQ(page[2].x, 135) << clockwise;
    EXPECT_FLOAT_EQ(page[2].y, 310) << clockwise;
    EXPECT_TRUE(CropGeometryOf(page).rotated90);
  }
  // Off-centre: the clockwise turn puts the region's bottom at the turned image's left.
  const Quad low = FromTurnedRegion(Box(0, 0, 20, 10), region, true);
  EXPECT_FLOAT_EQ(low[0].y, 300);
  EXPECT_FLOAT_EQ(low[0].x, 100);
  const Quad high = FromTurnedRegion(Box(0, 0, 20, 10), region, false);
  EXPECT_FLOAT_EQ(high[0].y, 200);
  EXPECT_FLOAT_EQ(high[0].x, 130);
}

TEST(TurnedLinesTest, TheLongestOfOverlappingLinesIsKept) {
  // One turn found the line whole, the other in two pieces; a second line lies apart.
  const std::vector<Quad> found = {Box(750, 500, 762, 540), Box(750, 545, 762, 584),
                                   Box(749, 498, 761, 585), Box(750, 700, 762, 780)};
  const std::vector<Quad> kept = LongestOfOverlapping(found);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_FLOAT_EQ(kept[0].front().y, 498);
  EXPECT_FLOAT_EQ(kept[1].front().y, 700);
}

TEST(TurnedLinesTest, PiecesInsideALineAreItsMembers) {
  const std::vector<Quad> boxes = {Box(20, 500, 300, 514), Box(749, 540, 761, 584),
                                   Box(740, 490, 790, 502), Box(700, 560, 760, 574)};
  // The piece lies inside; a box half out is not; nor is one most of which lies beside.
  EXPECT_EQ(BoxesInside(Box(747, 497, 763, 586), boxes), (std::vector<size_t>{1}));
}

}  // namespace
}  // namespace ocr::pipeline
