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

TEST(TurnedLinesTest, AStampedNumberInFragmentsIsFoundEndToEnd) {
  // A numbering stamp's grey ink, unevenly inked: about half of its pixels print, so most glyphs
  // fall apart into fragments smaller than a glyph. The fragments cover the column between the
  // glyphs that still count, and the line runs from the first fragment to the last.
  Page page = MakePage(8, "");
  const Page number = MakePage(8, "PM12621910");
  // Blotches of about 3 x 3 px that do not print (a stamp inked unevenly, scanned at 100 dpi).
  cv::Mat blotches(number.number.height / 3 + 1, number.number.width / 3 + 1, CV_32F);
  cv::RNG(42).fill(blotches, cv::RNG::UNIFORM, 0.0, 1.0);
  cv::resize(blotches, blotches, cv::Size(), 3, 3, cv::INTER_LINEAR);
  for (int y = 0; y < number.number.height; ++y) {
    for (int x = 0; x < number.number.width; ++x) {
      const cv::Point at = number.number.tl() + cv::Point(x, y);
      if (number.image.at<cv::Vec3b>(at)[0] < 200)
        page.image.at<cv::Vec3b>(at) =
            blotches.at<float>(y, x) > 0.5f ? cv::Vec3b(235, 235, 235) : cv::Vec3b(175, 175, 175);
    }
  }
  cv::Mat grey;
  cv::cvtColor(page.image(number.number), grey, cv::COLOR_BGR2GRAY);
  cv::Mat ink = grey < 200;
  const cv::Rect printed = cv::boundingRect(ink) + number.number.tl();
  const std::vector<TurnedRegion> regions = TurnedLineRegions(page.image, page.boxes);
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_EQ(regions[0].rect & printed, printed);
  EXPECT_LE(regions[0].line.y, printed.y + 5);
  EXPECT_GE(regions[0].line.br().y, printed.br().y - 5);
  EXPECT_LE(regions[0].line.width, printed.width + 2);
}

TEST(TurnedLinesTest, ANumberSplitAtAWideSpaceIsFoundWhole) {
  // "4318  3657" turned, its inks 17 px apart (over a text height: the page's boxes are 16 px),
  // each shorter than a turned line's 3 text heights: one region holds both.
  Page page = MakePage(8, "");
  const Page first = MakePage(8, "4318");
  const Page second = MakePage(8, "3657");
  const cv::Rect low(first.number.x, first.number.y + first.number.height + 6, second.number.width,
                     second.number.height);
  first.image(first.number).copyTo(page.image(first.number));
  second.image(second.number).copyTo(page.image(low));
  ASSERT_LT(first.number.height - 8, 48);  // the strip's 4 px margins each end are not ink
  const std::vector<TurnedRegion> regions = TurnedLineRegions(page.image, page.boxes);
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_EQ(regions[0].rect & first.number, first.number);
  EXPECT_EQ(regions[0].rect & low, low);
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

TEST(TurnedLinesTest, ALineFoundAlongTheGlyphsRunsAlongThem) {
  const cv::Rect glyphs(750, 500, 12, 80);
  // Most of the column, or all of it, is found; half of it is enough.
  EXPECT_TRUE(RunsAlong(std::vector<Quad>{Box(748, 505, 764, 575)}, glyphs));
  EXPECT_TRUE(RunsAlong(std::vector<Quad>{Box(749, 480, 763, 600)}, glyphs));
  EXPECT_TRUE(RunsAlong(std::vector<Quad>{Box(20, 300, 60, 310), Box(750, 540, 762, 580)}, glyphs));
  // A piece of it, a line beside it, or none: not.
  EXPECT_FALSE(RunsAlong(std::vector<Quad>{Box(750, 500, 762, 535)}, glyphs));
  EXPECT_FALSE(RunsAlong(std::vector<Quad>{Box(700, 500, 745, 580)}, glyphs));
  EXPECT_FALSE(RunsAlong(std::vector<Quad>{}, glyphs));
}

TEST(TurnedLinesTest, AGlyphLineIsPaddedAsTheDetectorPadsALine) {
  // Text 10 px high: half of it along the column, a fifth across, inside the region.
  const TurnedRegion region{cv::Rect(730, 480, 50, 120), 10, cv::Rect(750, 500, 12, 80)};
  const Quad line = GlyphLine(region);
  EXPECT_FLOAT_EQ(line[0].x, 748);
  EXPECT_FLOAT_EQ(line[0].y, 495);
  EXPECT_FLOAT_EQ(line[2].x, 764);
  EXPECT_FLOAT_EQ(line[2].y, 585);
  EXPECT_TRUE(CropGeometryOf(line).rotated90);
  // At the page's edge, the region clips it.
  const TurnedRegion edge{cv::Rect(760, 480, 14, 120), 10, cv::Rect(762, 482, 12, 80)};
  EXPECT_FLOAT_EQ(GlyphLine(edge)[2].x, 774);
  EXPECT_FLOAT_EQ(GlyphLine(edge)[0].y, 480);
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
