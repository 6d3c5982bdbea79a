#include "pipeline/det/db_postprocess.h"

#include <algorithm>

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include "pipeline/geometry.h"

namespace ocr::pipeline {
namespace {

cv::Mat MapWith(std::initializer_list<std::pair<cv::Rect, float>> regions, int w = 300,
                int h = 200) {
  cv::Mat prob = cv::Mat::zeros(h, w, CV_32FC1);
  for (const auto& [rect, value] : regions)
    prob(rect).setTo(value);
  return prob;
}

TEST(DbPostprocessTest, FindsOneBoxPerTextRegion) {
  const cv::Mat prob =
      MapWith({{cv::Rect(20, 30, 100, 20), 0.9f}, {cv::Rect(20, 100, 180, 30), 0.8f}});
  const auto boxes = DbPostprocess(prob, 300, 200, {});
  ASSERT_EQ(boxes.size(), 2u);
}

TEST(DbPostprocessTest, UnclipGrowsBoxByAreaOverPerimeter) {
  // Contour of pixels 20..119 x 30..49: a 99 x 19 rectangle, so the offset is
  // 99 * 19 * 1.5 / (2 * (99 + 19)) = 11.95 px on every side.
  const cv::Mat prob = MapWith({{cv::Rect(20, 30, 100, 20), 0.9f}});
  const auto boxes = DbPostprocess(prob, 300, 200, {});
  ASSERT_EQ(boxes.size(), 1u);
  const Extent e = ExtentOf(boxes[0]);
  EXPECT_NEAR(e.x0, 20 - 11.95, 1.5);
  EXPECT_NEAR(e.x1, 119 + 11.95, 1.5);
  EXPECT_NEAR(e.y0, 30 - 11.95, 1.5);
  EXPECT_NEAR(e.y1, 49 + 11.95, 1.5);
}

TEST(DbPostprocessTest, ScalesToSourceImage) {
  const cv::Mat prob = MapWith({{cv::Rect(20, 30, 100, 20), 0.9f}});
  const auto boxes = DbPostprocess(prob, 600, 800, {});  // map is 300 x 200
  ASSERT_EQ(boxes.size(), 1u);
  const Extent e = ExtentOf(boxes[0]);
  EXPECT_NEAR(e.x0, (20 - 11.95) * 2, 3);
  EXPECT_NEAR(e.x1, (119 + 11.95) * 2, 3);
  EXPECT_NEAR(e.y0, (30 - 11.95) * 4, 6);
  EXPECT_NEAR(e.y1, (49 + 11.95) * 4, 6);
  for (const Point& p : boxes[0]) {
    EXPECT_EQ(p.x, std::round(p.x));  // whole pixels
  }
}

TEST(DbPostprocessTest, DropsRegionsBelowBoxThreshold) {
  // 0.45 passes the pixel threshold (0.3) but not the box threshold (0.6).
  const cv::Mat prob = MapWith({{cv::Rect(20, 30, 100, 20), 0.45f}});
  EXPECT_TRUE(DbPostprocess(prob, 300, 200, {}).empty());
  DbOptions lenient;
  lenient.box_thresh = 0.4f;
  EXPECT_EQ(DbPostprocess(prob, 300, 200, lenient).size(), 1u);
}

TEST(DbPostprocessTest, DropsTinyRegions) {
  const cv::Mat prob = MapWith({{cv::Rect(50, 50, 2, 2), 1.0f}, {cv::Rect(100, 100, 40, 1), 1.0f}});
  EXPECT_TRUE(DbPostprocess(prob, 300, 200, {}).empty());
}

TEST(DbPostprocessTest, ClipsBoxesToTheImage) {
  const cv::Mat prob = MapWith({{cv::Rect(0, 0, 100, 20), 0.9f}});
  const auto boxes = DbPostprocess(prob, 300, 200, {});
  ASSERT_EQ(boxes.size(), 1u);
  const Extent e = ExtentOf(boxes[0]);
  EXPECT_EQ(e.x0, 0);
  EXPECT_EQ(e.y0, 0);
}

TEST(DbPostprocessTest, RespectsMaxCandidates) {
  cv::Mat prob = cv::Mat::zeros(200, 300, CV_32FC1);
  for (int i = 0; i < 5; ++i)
    prob(cv::Rect(10, 10 + i * 35, 200, 15)).setTo(0.9f);
  EXPECT_EQ(DbPostprocess(prob, 300, 200, {}).size(), 5u);
  DbOptions capped;
  capped.max_candidates = 2;
  EXPECT_EQ(DbPostprocess(prob, 300, 200, capped).size(), 2u);
}

TEST(DbPostprocessTest, FollowsRotatedRegion) {
  cv::Mat prob = cv::Mat::zeros(300, 300, CV_32FC1);
  const cv::RotatedRect r({150, 150}, {200, 24}, 30);
  cv::Point2f p[4];
  r.points(p);
  std::vector<cv::Point> poly;
  for (const auto& q : p)
    poly.emplace_back(static_cast<int>(q.x), static_cast<int>(q.y));
  cv::fillConvexPoly(prob, poly, cv::Scalar(0.9));
  const auto boxes = DbPostprocess(prob, 300, 300, {});
  ASSERT_EQ(boxes.size(), 1u);
  // The box's long edge keeps the region's 30 degree slant.
  const Quad& q = boxes[0];
  float best = 0;
  Point a{}, b{};
  for (int i = 0; i < 4; ++i) {
    const Point& s = q[i];
    const Point& t = q[(i + 1) % 4];
    const float len = std::hypot(t.x - s.x, t.y - s.y);
    if (len > best) {
      best = len;
      a = s;
      b = t;
    }
  }
  const double angle = std::atan2(std::abs(b.y - a.y), std::abs(b.x - a.x)) * 180.0 / CV_PI;
  EXPECT_NEAR(angle, 30, 2);
}

TEST(BoxScoreFastTest, MeanInsideTheBox) {
  cv::Mat prob = cv::Mat::zeros(50, 50, CV_32FC1);
  prob(cv::Rect(10, 10, 20, 10)).setTo(0.8f);
  EXPECT_NEAR(BoxScoreFast(prob, {Point{10, 10}, Point{29, 10}, Point{29, 19}, Point{10, 19}}), 0.8,
              1e-5);
  // Half covered: the right half of this box lies on zeros.
  const float half =
      BoxScoreFast(prob, {Point{20, 10}, Point{39, 10}, Point{39, 19}, Point{20, 19}});
  EXPECT_NEAR(half, 0.4, 0.03);
}

TEST(UnclipTest, SquareGrowsByExpectedDistance) {
  // 10 x 10 square: distance = 100 * 1.5 / 40 = 3.75.
  const auto pts = Unclip({Point{0, 0}, Point{10, 0}, Point{10, 10}, Point{0, 10}}, 1.5f);
  ASSERT_GE(pts.size(), 4u);
  const cv::Rect bounds = cv::boundingRect(pts);
  EXPECT_NEAR(bounds.x, -3.75, 1);
  EXPECT_NEAR(bounds.x + bounds.width - 1, 13.75, 1);
}

TEST(UnclipTest, DegenerateBoxGivesNothing) {
  EXPECT_TRUE(Unclip({Point{5, 5}, Point{5, 5}, Point{5, 5}, Point{5, 5}}, 1.5f).empty());
}

}  // namespace
}  // namespace ocr::pipeline
