#include "pipeline/geometry.h"

#include <cmath>

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

namespace ocr::pipeline {
namespace {

Quad Rotated(float cx, float cy, float w, float h, float degrees) {
  const cv::RotatedRect r({cx, cy}, {w, h}, degrees);
  cv::Point2f p[4];
  r.points(p);
  return {Point{p[0].x, p[0].y}, Point{p[1].x, p[1].y}, Point{p[2].x, p[2].y},
          Point{p[3].x, p[3].y}};
}

void ExpectNear(const Point& p, float x, float y) {
  EXPECT_NEAR(p.x, x, 0.01) << "x";
  EXPECT_NEAR(p.y, y, 0.01) << "y";
}

TEST(GeometryTest, OrdersAxisAlignedBoxFromAnyStart) {
  const Quad shuffled = {Point{110, 40}, Point{10, 20}, Point{10, 40}, Point{110, 20}};
  const Quad q = OrderClockwise(shuffled);
  ExpectNear(q[0], 10, 20);
  ExpectNear(q[1], 110, 20);
  ExpectNear(q[2], 110, 40);
  ExpectNear(q[3], 10, 40);
}

TEST(GeometryTest, OrdersSlightlyRotatedLine) {
  // A line rising to the right by 5 degrees: its top edge is the long one going right and up.
  const Quad q = OrderClockwise(Rotated(200, 100, 300, 30, -5));
  EXPECT_GT(q[1].x - q[0].x, 250);  // top edge is the long one
  EXPECT_LT(q[1].y, q[0].y);        // rising
  EXPECT_LT(q[0].y, q[3].y);        // bottom-left is below top-left
  EXPECT_GT(q[2].x, q[3].x);
}

TEST(GeometryTest, OrdersTallSlantedBoxWhereSumRuleFails) {
  // A vertical text column (20 wide, 200 tall) leaning by 12 degrees. The reference's
  // "smallest x+y is top-left" rule picks a corner of the long side here.
  const Quad q = OrderClockwise(Rotated(100, 150, 20, 200, 12));
  const float top = std::hypot(q[1].x - q[0].x, q[1].y - q[0].y);
  const float left = std::hypot(q[3].x - q[0].x, q[3].y - q[0].y);
  EXPECT_NEAR(top, 20, 0.5);    // the short edge is on top
  EXPECT_NEAR(left, 200, 0.5);  // the long edge runs down the left
  EXPECT_LT(q[0].y, q[3].y);
  EXPECT_LT(q[0].x, q[1].x);
}

TEST(GeometryTest, Orders45DegreeBoxDeterministically) {
  const Quad a = OrderClockwise(Rotated(50, 50, 40, 40, 45));
  const Quad b = OrderClockwise({a[2], a[3], a[0], a[1]});
  for (int i = 0; i < 4; ++i)
    ExpectNear(b[i], a[i].x, a[i].y);
  EXPECT_LT(a[1].y, a[0].y);  // on the tie, the top edge rises
}

TEST(GeometryTest, SortsRowsThenLeftToRightWithinTolerance) {
  auto box = [](float x, float y) {
    return Quad{Point{x, y}, Point{x + 50, y}, Point{x + 50, y + 20}, Point{x, y + 20}};
  };
  // Same row (y differs by 6 px) listed right to left, then a second row.
  std::vector<Quad> boxes = {box(300, 106), box(10, 100), box(200, 103), box(10, 150)};
  SortReadingOrder(boxes);
  EXPECT_FLOAT_EQ(boxes[0][0].x, 10);
  EXPECT_FLOAT_EQ(boxes[1][0].x, 200);
  EXPECT_FLOAT_EQ(boxes[2][0].x, 300);
  EXPECT_FLOAT_EQ(boxes[3][0].y, 150);
}

TEST(GeometryTest, KeepsRowsApartBeyondTolerance) {
  auto box = [](float x, float y) {
    return Quad{Point{x, y}, Point{x + 50, y}, Point{x + 50, y + 20}, Point{x, y + 20}};
  };
  std::vector<Quad> boxes = {box(300, 100), box(10, 112)};
  SortReadingOrder(boxes);
  EXPECT_FLOAT_EQ(boxes[0][0].x, 300);
}

TEST(GeometryTest, CropsAxisAlignedBox) {
  cv::Mat image(100, 200, CV_8UC3, cv::Scalar(255, 255, 255));
  cv::rectangle(image, cv::Rect(20, 30, 40, 20), cv::Scalar(0, 0, 0), cv::FILLED);
  const cv::Mat crop =
      CropTextLine(image, {Point{20, 30}, Point{100, 30}, Point{100, 50}, Point{20, 50}});
  ASSERT_EQ(crop.cols, 80);
  ASSERT_EQ(crop.rows, 20);
  EXPECT_LT(cv::mean(crop(cv::Rect(2, 2, 30, 16)))[0], 10);    // dark left part
  EXPECT_GT(cv::mean(crop(cv::Rect(50, 2, 28, 16)))[0], 245);  // white right part
}

TEST(GeometryTest, TurnsTallCropsCounterClockwise) {
  cv::Mat image(200, 100, CV_8UC3, cv::Scalar(255, 255, 255));
  cv::rectangle(image, cv::Rect(40, 20, 20, 30), cv::Scalar(0, 0, 0), cv::FILLED);
  // 20 wide, 90 tall: the dark top third must end up on the left after the turn.
  const cv::Mat crop =
      CropTextLine(image, {Point{40, 20}, Point{60, 20}, Point{60, 110}, Point{40, 110}});
  ASSERT_EQ(crop.cols, 90);
  ASSERT_EQ(crop.rows, 20);
  EXPECT_LT(cv::mean(crop(cv::Rect(2, 2, 20, 16)))[0], 10);
  EXPECT_GT(cv::mean(crop(cv::Rect(60, 2, 28, 16)))[0], 245);
}

TEST(GeometryTest, StraightensRotatedLine) {
  cv::Mat image(300, 300, CV_8UC3, cv::Scalar(255, 255, 255));
  const Quad box = OrderClockwise(Rotated(150, 150, 200, 40, 20));
  std::vector<cv::Point> left_half;
  // Paint the left half of the rotated box dark.
  const Point mid_top = {(box[0].x + box[1].x) / 2, (box[0].y + box[1].y) / 2};
  const Point mid_bottom = {(box[3].x + box[2].x) / 2, (box[3].y + box[2].y) / 2};
  for (const Point& p : {box[0], mid_top, mid_bottom, box[3]}) {
    left_half.emplace_back(static_cast<int>(std::lround(p.x)), static_cast<int>(std::lround(p.y)));
  }
  cv::fillConvexPoly(image, left_half, cv::Scalar(0, 0, 0));
  const cv::Mat crop = CropTextLine(image, box);
  EXPECT_NEAR(crop.cols, 200, 2);
  EXPECT_NEAR(crop.rows, 40, 2);
  EXPECT_LT(cv::mean(crop(cv::Rect(10, 8, 70, 24)))[0], 30);
  EXPECT_GT(cv::mean(crop(cv::Rect(120, 8, 70, 24)))[0], 225);
}

TEST(GeometryTest, ExtentOfASlantedBoxHoldsAllItsCorners) {
  const Quad slanted = {Point{10, 20}, Point{110, 10}, Point{112, 30}, Point{12, 40}};
  const Extent e = ExtentOf(slanted);
  EXPECT_FLOAT_EQ(e.x0, 10);
  EXPECT_FLOAT_EQ(e.y0, 10);
  EXPECT_FLOAT_EQ(e.x1, 112);
  EXPECT_FLOAT_EQ(e.y1, 40);
  EXPECT_FLOAT_EQ(e.area(), 102 * 30);
}

TEST(GeometryTest, OverlapAreaIsWhatTwoExtentsShare) {
  EXPECT_FLOAT_EQ(OverlapArea({0, 0, 10, 10}, {5, 5, 20, 20}), 25);
  EXPECT_FLOAT_EQ(OverlapArea({0, 0, 10, 10}, {10, 0, 20, 10}), 0);  // touching
  EXPECT_FLOAT_EQ(OverlapArea({0, 0, 10, 10}, {30, 30, 40, 40}), 0);
}

}  // namespace
}  // namespace ocr::pipeline
