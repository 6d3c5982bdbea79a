#include "document/internal/line_ink.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "document/internal/column_gaps.h"
#include "document/internal/page_gray.h"

namespace ocr::document::internal {
namespace {

using pipeline::Quad;

// Grey levels closer than this hold no ink: a blank box, or paper noise.
constexpr double kMinInkContrast = 40;

// The columns [first, last] and rows [top, bottom] of a box's axis-aligned rectangle that hold
// ink, relative to the rectangle.
struct InkExtent {
  std::vector<bool> column;  // whether each column holds ink
  int top = 0;
  int bottom = 0;
};

std::optional<InkExtent> InkOf(const cv::Mat& gray, const cv::Rect& rect) {
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
  InkExtent ink{std::vector<bool>(static_cast<std::size_t>(dark.cols), false), dark.rows, -1};
  for (int y = 0; y < dark.rows; ++y) {
    const auto* row = dark.ptr<unsigned char>(y);
    bool any = false;
    for (int x = 0; x < dark.cols; ++x) {
      if (row[x] != 0) {
        ink.column[static_cast<std::size_t>(x)] = true;
        any = true;
      }
    }
    if (any) {
      ink.top = std::min(ink.top, y);
      ink.bottom = std::max(ink.bottom, y);
    }
  }
  if (ink.bottom < 0)
    return std::nullopt;
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

// Narrows `q` along its top edge to the ink columns of `ink` (relative to `rect`) within the
// quad's own horizontal extent; never widens it.
void Narrow(Quad& q, const InkExtent& ink, const cv::Rect& rect) {
  const float left = std::min(q[0].x, q[3].x);
  const float right = std::max(q[1].x, q[2].x);
  const int from = std::max(0, static_cast<int>(std::floor(left)) - rect.x);
  const int to = std::min(rect.width, static_cast<int>(std::ceil(right)) - rect.x);
  int first = -1;
  int last = -1;
  for (int x = from; x < to; ++x) {
    if (ink.column[static_cast<std::size_t>(x)]) {
      if (first < 0)
        first = x;
      last = x;
    }
  }
  if (first < 0)
    return;
  const float cut_left = std::max(0.0F, static_cast<float>(rect.x + first) - left);
  const float cut_right = std::max(0.0F, right - static_cast<float>(rect.x + last + 1));
  const float dx = q[1].x - q[0].x;
  const float dy = q[1].y - q[0].y;
  const float length = std::hypot(dx, dy);
  if (length <= 0 || cut_left + cut_right >= dx)
    return;
  // Along the top edge: x moves by the cut, y by the edge's slope.
  const float slope = dy / dx;
  for (const int i : {0, 3}) {
    q[static_cast<std::size_t>(i)].x += cut_left;
    q[static_cast<std::size_t>(i)].y += cut_left * slope;
  }
  for (const int i : {1, 2}) {
    q[static_cast<std::size_t>(i)].x -= cut_right;
    q[static_cast<std::size_t>(i)].y -= cut_right * slope;
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
    const cv::Rect rect = RectOf(line.box, gray.size());
    if (rect.width <= 0 || rect.height <= 0)
      continue;
    const std::optional<InkExtent> ink = InkOf(gray, rect);
    if (!ink)
      continue;
    heights.push_back(ink->bottom - ink->top + 1);
    Narrow(line.box, *ink, rect);
    for (pipeline::Word& w : line.words)
      Narrow(w.box, *ink, rect);
  }
  if (!heights.empty()) {
    const auto mid = heights.begin() + static_cast<std::ptrdiff_t>(heights.size() / 2);
    std::nth_element(heights.begin(), mid, heights.end());
    out.text_height = *mid;
  }
  return out;
}

}  // namespace ocr::document::internal
