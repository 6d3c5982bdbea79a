#include "pipeline/det/db_postprocess.h"

#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>
#include <polyclipping/clipper.hpp>

#include "pipeline/geometry.h"

namespace ocr::pipeline {
namespace {

struct MiniBox {
  Quad quad;
  float short_side = 0;
};

// PaddleOCR's get_mini_boxes: the minimum-area rectangle, corners sorted by x, then the left pair
// and the right pair each ordered by y, giving top-left, top-right, bottom-right, bottom-left.
template <typename PointT>
MiniBox GetMiniBox(const std::vector<PointT>& contour) {
  const cv::RotatedRect rect = cv::minAreaRect(contour);
  cv::Point2f pts[4];
  rect.points(pts);
  std::stable_sort(pts, pts + 4,
                   [](const cv::Point2f& a, const cv::Point2f& b) { return a.x < b.x; });
  int i1 = 0, i2 = 1, i3 = 2, i4 = 3;
  if (pts[1].y > pts[0].y) {
    i1 = 0;
    i4 = 1;
  } else {
    i1 = 1;
    i4 = 0;
  }
  if (pts[3].y > pts[2].y) {
    i2 = 2;
    i3 = 3;
  } else {
    i2 = 3;
    i3 = 2;
  }
  MiniBox box;
  const int order[4] = {i1, i2, i3, i4};
  for (size_t k = 0; k < 4; ++k)
    box.quad[k] = {pts[order[k]].x, pts[order[k]].y};
  box.short_side = std::min(rect.size.width, rect.size.height);
  return box;
}

double PolygonArea(const Quad& q) {
  double a = 0;
  for (size_t i = 0; i < 4; ++i) {
    const Point& p = q[i];
    const Point& n = q[(i + 1) % 4];
    a += static_cast<double>(p.x) * n.y - static_cast<double>(n.x) * p.y;
  }
  return std::abs(a) / 2.0;
}

double PolygonPerimeter(const Quad& q) {
  double l = 0;
  for (size_t i = 0; i < 4; ++i) {
    l += std::hypot(static_cast<double>(q[i].x - q[(i + 1) % 4].x),
                    static_cast<double>(q[i].y - q[(i + 1) % 4].y));
  }
  return l;
}

}  // namespace

float BoxScoreFast(const cv::Mat& prob, const Quad& box) {
  const int h = prob.rows;
  const int w = prob.cols;
  const Extent e = ExtentOf(box);
  const int xmin = std::clamp(static_cast<int>(std::floor(e.x0)), 0, w - 1);
  const int xmax = std::clamp(static_cast<int>(std::ceil(e.x1)), 0, w - 1);
  const int ymin = std::clamp(static_cast<int>(std::floor(e.y0)), 0, h - 1);
  const int ymax = std::clamp(static_cast<int>(std::ceil(e.y1)), 0, h - 1);
  cv::Mat mask = cv::Mat::zeros(ymax - ymin + 1, xmax - xmin + 1, CV_8UC1);
  std::vector<cv::Point> poly;
  poly.reserve(4);
  // Truncation toward zero, as numpy's astype("int32") does.
  for (const Point& p : box) {
    poly.emplace_back(static_cast<int>(p.x - static_cast<float>(xmin)),
                      static_cast<int>(p.y - static_cast<float>(ymin)));
  }
  cv::fillPoly(mask, std::vector<std::vector<cv::Point>>{poly}, cv::Scalar(1));
  const cv::Rect roi(xmin, ymin, xmax - xmin + 1, ymax - ymin + 1);
  return static_cast<float>(cv::mean(prob(roi), mask)[0]);
}

std::vector<cv::Point> Unclip(const Quad& box, float unclip_ratio) {
  const double perimeter = PolygonPerimeter(box);
  if (perimeter <= 0)
    return {};
  const double distance = PolygonArea(box) * unclip_ratio / perimeter;
  ClipperLib::Path path;
  // Clipper works on integers; truncate like pyclipper does with float input.
  for (const Point& p : box) {
    path.emplace_back(static_cast<ClipperLib::cInt>(p.x), static_cast<ClipperLib::cInt>(p.y));
  }
  ClipperLib::ClipperOffset offset;
  offset.AddPath(path, ClipperLib::jtRound, ClipperLib::etClosedPolygon);
  ClipperLib::Paths solution;
  offset.Execute(solution, distance);
  if (solution.empty())
    return {};
  // A quad grows into one outline; should rounding ever split it, keep the largest part.
  const auto largest = std::max_element(
      solution.begin(), solution.end(),
      [](const ClipperLib::Path& a, const ClipperLib::Path& b) { return a.size() < b.size(); });
  std::vector<cv::Point> out;
  out.reserve(largest->size());
  for (const ClipperLib::IntPoint& p : *largest) {
    out.emplace_back(static_cast<int>(p.X), static_cast<int>(p.Y));
  }
  return out;
}

std::vector<Quad> DbPostprocess(const cv::Mat& prob, int src_width, int src_height,
                                const DbOptions& options) {
  cv::Mat bitmap = prob > options.thresh;  // CV_8U, 0 or 255
  if (options.use_dilation) {
    cv::dilate(bitmap, bitmap, cv::Mat::ones(2, 2, CV_8U));
  }
  std::vector<std::vector<cv::Point>> contours;
  cv::findContours(bitmap, contours, cv::RETR_LIST, cv::CHAIN_APPROX_SIMPLE);

  const float width = static_cast<float>(prob.cols);
  const float height = static_cast<float>(prob.rows);
  const size_t n = std::min(contours.size(), static_cast<size_t>(options.max_candidates));
  std::vector<Quad> boxes;
  for (size_t i = 0; i < n; ++i) {
    const MiniBox candidate = GetMiniBox(contours[i]);
    if (candidate.short_side < static_cast<float>(options.min_size))
      continue;
    if (options.box_thresh > BoxScoreFast(prob, candidate.quad))
      continue;
    const std::vector<cv::Point> expanded = Unclip(candidate.quad, options.unclip_ratio);
    if (expanded.size() < 3)
      continue;
    const MiniBox grown = GetMiniBox(expanded);
    if (grown.short_side < static_cast<float>(options.min_size + 2))
      continue;
    Quad box;
    for (size_t k = 0; k < 4; ++k) {
      // np.round rounds halves to even, as nearbyint does in the default rounding mode.
      box[k].x = std::clamp(std::nearbyint(grown.quad[k].x / width * static_cast<float>(src_width)),
                            0.0f, static_cast<float>(src_width));
      box[k].y =
          std::clamp(std::nearbyint(grown.quad[k].y / height * static_cast<float>(src_height)),
                     0.0f, static_cast<float>(src_height));
    }
    boxes.push_back(box);
  }
  return boxes;
}

}  // namespace ocr::pipeline
