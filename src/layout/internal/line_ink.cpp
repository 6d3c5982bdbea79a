#include "layout/internal/line_ink.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "layout/column_gaps.h"
#include "layout/internal/page_gray.h"

namespace ocr::layout::internal {
namespace {

using pipeline::Quad;

// Grey levels closer than this hold no ink: a blank box, or paper noise.
constexpr double kMinInkContrast = 40;

// Whether each column of a box's axis-aligned rectangle holds ink, relative to the rectangle.
using InkColumns = std::vector<bool>;

std::optional<InkColumns> InkOf(const cv::Mat& gray, const cv::Rect& rect) {
  const cv::Mat crop = gray(rect);
  double lo = 0;
  double hi = 0;
  cv::minMaxLoc(crop, &lo, &hi);
  if (hi - lo < kMinInkContrast)
    return std::nullopt;
  cv::Mat dark;
  cv::threshold(crop, dark, 0, 255, cv::THRESH_BINARY_INV | cv::THRESH_OTSU);
  // Text is the minority of a line's box: light text on a dark fill is the other side.
  if (2 * cv::countNonZero(dark) > dark.rows * dark.cols)
    cv::bitwise_not(dark, dark);
  InkColumns ink(static_cast<std::size_t>(dark.cols), false);
  for (int y = 0; y < dark.rows; ++y) {
    const auto* row = dark.ptr<unsigned char>(y);
    for (int x = 0; x < dark.cols; ++x)
      ink[static_cast<std::size_t>(x)] = ink[static_cast<std::size_t>(x)] || row[x] != 0;
  }
  return ink;
}

cv::Rect RectOf(const Quad& q, const cv::Size& size) {
  float x0 = q[0].x;
  float y0 = q[0].y;
  float x1 = q[0].x;
  float y1 = q[0].y;
  for (const pipeline::Point& p : q) {
    x0 = std::min(x0, p.x);
    y0 = std::min(y0, p.y);
    x1 = std::max(x1, p.x);
    y1 = std::max(y1, p.y);
  }
  const cv::Rect rect(cv::Point(static_cast<int>(std::floor(x0)), static_cast<int>(std::floor(y0))),
                      cv::Point(static_cast<int>(std::ceil(x1)), static_cast<int>(std::ceil(y1))));
  return rect & cv::Rect(0, 0, size.width, size.height);
}

float LeftOf(const Quad& q) {
  return std::min(q[0].x, q[3].x);
}

float RightOf(const Quad& q) {
  return std::max(q[1].x, q[2].x);
}

// Moves `q`'s left edge to x = `left` and its right edge to x = `right`, along its top edge.
void SetSpan(Quad& q, float left, float right) {
  const float dx = q[1].x - q[0].x;
  if (dx <= 0 || right <= left)
    return;
  const float slope = (q[1].y - q[0].y) / dx;
  const float by_left = left - LeftOf(q);
  const float by_right = RightOf(q) - right;
  for (const std::size_t i : {0U, 3U}) {
    q[i].x += by_left;
    q[i].y += by_left * slope;
  }
  for (const std::size_t i : {1U, 2U}) {
    q[i].x -= by_right;
    q[i].y -= by_right * slope;
  }
}

// Narrows `q` to the ink columns of `ink` (relative to `rect`) within its own horizontal extent;
// never widens it.
void Narrow(Quad& q, const InkColumns& ink, const cv::Rect& rect) {
  const int from = std::max(0, static_cast<int>(std::floor(LeftOf(q))) - rect.x);
  const int to = std::min(rect.width, static_cast<int>(std::ceil(RightOf(q))) - rect.x);
  int first = -1;
  int last = -1;
  for (int x = from; x < to; ++x) {
    if (ink[static_cast<std::size_t>(x)]) {
      first = first < 0 ? x : first;
      last = x;
    }
  }
  if (first >= 0) {
    SetSpan(q, std::max(LeftOf(q), static_cast<float>(rect.x + first)),
            std::min(RightOf(q), static_cast<float>(rect.x + last + 1)));
  }
}

// Parts two neighbouring words whose boxes still meet once narrowed (InkLines::lines).
void Part(Quad& a, Quad& b, const InkColumns& ink, const cv::Rect& rect) {
  if (RightOf(a) < LeftOf(b))
    return;
  const auto centre = [&](const Quad& q) {
    return std::clamp(static_cast<int>((LeftOf(q) + RightOf(q)) / 2) - rect.x, 0, rect.width);
  };
  int best_start = 0;
  int best_end = 0;
  for (int x = centre(a), start = x; x <= centre(b); ++x) {
    if (x < centre(b) && !ink[static_cast<std::size_t>(x)])
      continue;
    if (x - start > best_end - best_start) {
      best_start = start;
      best_end = x;
    }
    start = x + 1;
  }
  if (best_end > best_start) {
    SetSpan(a, LeftOf(a), static_cast<float>(rect.x + best_start));
    SetSpan(b, static_cast<float>(rect.x + best_end), RightOf(b));
  }
}

}  // namespace

InkLines FitToInk(const std::vector<pipeline::TextLine>& lines, const cv::Mat& page) {
  InkLines out{lines, std::numeric_limits<double>::infinity()};
  if (page.empty())
    return out;
  const cv::Mat gray = PageGray(page);
  std::vector<double> heights;
  for (pipeline::TextLine& line : out.lines) {
    if (!IsUpright(line.box))
      continue;
    heights.push_back(std::hypot(line.box[3].x - line.box[0].x, line.box[3].y - line.box[0].y));
    const cv::Rect rect = RectOf(line.box, gray.size());
    if (rect.width <= 0 || rect.height <= 0)
      continue;
    const std::optional<InkColumns> ink = InkOf(gray, rect);
    if (!ink)
      continue;
    Narrow(line.box, *ink, rect);
    for (pipeline::Word& w : line.words)
      Narrow(w.box, *ink, rect);
    for (std::size_t k = 1; k < line.words.size(); ++k)
      Part(line.words[k - 1].box, line.words[k].box, *ink, rect);
  }
  if (!heights.empty()) {
    const auto mid = heights.begin() + static_cast<std::ptrdiff_t>(heights.size() / 2);
    std::nth_element(heights.begin(), mid, heights.end());
    out.text_height = *mid / kBoxPerTextHeight;
  }
  return out;
}

}  // namespace ocr::layout::internal
