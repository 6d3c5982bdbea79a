#include "pipeline/geometry.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <opencv2/imgproc.hpp>

namespace ocr::pipeline {

float EdgeLength(const Point& a, const Point& b) {
  return std::hypot(a.x - b.x, a.y - b.y);
}

Extent ExtentOf(const Quad& quad) {
  Extent e{quad[0].x, quad[0].y, quad[0].x, quad[0].y};
  for (const Point& p : quad) {
    e.x0 = std::min(e.x0, p.x);
    e.y0 = std::min(e.y0, p.y);
    e.x1 = std::max(e.x1, p.x);
    e.y1 = std::max(e.y1, p.y);
  }
  return e;
}

float OverlapArea(const Extent& a, const Extent& b) {
  const float w = std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
  const float h = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
  return w > 0 && h > 0 ? w * h : 0.0f;
}

Quad OrderClockwise(const Quad& quad) {
  const float cx = (quad[0].x + quad[1].x + quad[2].x + quad[3].x) / 4.0f;
  const float cy = (quad[0].y + quad[1].y + quad[2].y + quad[3].y) / 4.0f;
  // With y pointing down, increasing atan2 angle is clockwise on screen.
  std::array<size_t, 4> idx = {0, 1, 2, 3};
  std::array<float, 4> angle{};
  for (size_t i = 0; i < 4; ++i)
    angle[i] = std::atan2(quad[i].y - cy, quad[i].x - cx);
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return angle[a] < angle[b]; });
  Quad cw;
  for (size_t i = 0; i < 4; ++i)
    cw[i] = quad[idx[i]];

  // Start at the corner whose outgoing edge is most rightward (the top edge of the text). On a
  // tie (a box at 45 degrees) prefer the edge that rises, as text baselines usually do.
  size_t start = 0;
  float best = -2.0f;
  for (size_t i = 0; i < 4; ++i) {
    const Point& a = cw[i];
    const Point& b = cw[(i + 1) % 4];
    const float len = EdgeLength(a, b);
    if (len <= 0)
      continue;
    const float score = ((b.x - a.x) - 1e-3f * (b.y - a.y)) / len;
    if (score > best) {
      best = score;
      start = i;
    }
  }
  Quad out;
  for (size_t i = 0; i < 4; ++i)
    out[i] = cw[(start + i) % 4];
  return out;
}

void SortReadingOrder(std::vector<Quad>& boxes, float row_tolerance_px) {
  std::stable_sort(boxes.begin(), boxes.end(), [](const Quad& a, const Quad& b) {
    if (a[0].y != b[0].y)
      return a[0].y < b[0].y;
    return a[0].x < b[0].x;
  });
  // Bubble boxes of the same row (top-left y within the tolerance) into left-to-right order.
  for (size_t i = 0; i + 1 < boxes.size(); ++i) {
    for (size_t j = i + 1; j-- > 0;) {
      if (std::abs(boxes[j + 1][0].y - boxes[j][0].y) < row_tolerance_px &&
          boxes[j + 1][0].x < boxes[j][0].x) {
        std::swap(boxes[j], boxes[j + 1]);
      } else {
        break;
      }
    }
  }
}

CropGeometry CropGeometryOf(const Quad& box) {
  CropGeometry g;
  g.warp_width = static_cast<int>(std::max(EdgeLength(box[0], box[1]), EdgeLength(box[2], box[3])));
  g.warp_height =
      static_cast<int>(std::max(EdgeLength(box[0], box[3]), EdgeLength(box[1], box[2])));
  g.rotated90 = g.warp_width > 0 && g.warp_height > 0 &&
                static_cast<float>(g.warp_height) >= 1.5f * static_cast<float>(g.warp_width);
  return g;
}

namespace {

void WarpCorners(const Quad& box, const CropGeometry& g, cv::Point2f (&src)[4],
                 cv::Point2f (&dst)[4]) {
  const auto w = static_cast<float>(g.warp_width);
  const auto h = static_cast<float>(g.warp_height);
  for (int i = 0; i < 4; ++i)
    src[i] = {box[static_cast<size_t>(i)].x, box[static_cast<size_t>(i)].y};
  dst[0] = {0, 0};
  dst[1] = {w, 0};
  dst[2] = {w, h};
  dst[3] = {0, h};
}

}  // namespace

cv::Mat CropTextLine(const cv::Mat& image, const Quad& box) {
  const CropGeometry g = CropGeometryOf(box);
  if (g.warp_width <= 0 || g.warp_height <= 0)
    return {};
  cv::Point2f src[4];
  cv::Point2f dst[4];
  WarpCorners(box, g, src, dst);
  cv::Mat crop;
  cv::warpPerspective(image, crop, cv::getPerspectiveTransform(src, dst),
                      cv::Size(g.warp_width, g.warp_height), cv::INTER_CUBIC, cv::BORDER_REPLICATE);
  if (g.rotated90)
    cv::rotate(crop, crop, cv::ROTATE_90_COUNTERCLOCKWISE);
  return crop;
}

Quad CropRectToImage(const Quad& box, bool flipped180, float x0, float x1) {
  const CropGeometry g = CropGeometryOf(box);
  const auto fw = static_cast<float>(g.width());
  const auto fh = static_cast<float>(g.height());
  const std::array<cv::Point2f, 4> rect = {cv::Point2f{x0, 0}, cv::Point2f{x1, 0},
                                           cv::Point2f{x1, fh}, cv::Point2f{x0, fh}};
  std::vector<cv::Point2f> warped;
  warped.reserve(4);
  for (cv::Point2f p : rect) {
    if (flipped180)
      p = {fw - p.x, fh - p.y};
    // ROTATE_90_COUNTERCLOCKWISE sends warped (x, y) to (y, warp_width - x); undo it.
    if (g.rotated90)
      p = {static_cast<float>(g.warp_width) - p.y, p.x};
    warped.push_back(p);
  }
  cv::Point2f src[4];
  cv::Point2f dst[4];
  WarpCorners(box, g, src, dst);
  std::vector<cv::Point2f> mapped;
  cv::perspectiveTransform(warped, mapped, cv::getPerspectiveTransform(dst, src));
  Quad out;
  for (size_t i = 0; i < 4; ++i)
    out[i] = {mapped[i].x, mapped[i].y};
  return out;
}

}  // namespace ocr::pipeline
