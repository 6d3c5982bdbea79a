// A line's axis-aligned summary (MeasureLine) and the grouping of lines into rows (GroupRows),
// shared by layout analysis and table finding.
#include "layout/line_geometry.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include "layout/internal/coordinates.h"

namespace ocr::layout {

using internal::SaneCoordinate;
using pipeline::Point;
using pipeline::Quad;

namespace {

// Two boxes are on one row when their vertical centres are closer than this fraction of the
// smaller box's height, that is when they overlap vertically by more than half of it.
constexpr float kSameRowFraction = 0.5F;

float Distance(Point a, Point b) {
  return std::hypot(a.x - b.x, a.y - b.y);
}

}  // namespace

LineGeom MeasureLine(const Quad& box, std::size_t index) {
  Quad q = box;
  for (Point& p : q) {
    p.x = SaneCoordinate(p.x);
    p.y = SaneCoordinate(p.y);
  }
  LineGeom g;
  g.index = index;
  g.left = std::min({q[0].x, q[1].x, q[2].x, q[3].x});
  g.right = std::max({q[0].x, q[1].x, q[2].x, q[3].x});
  g.center_y = (q[0].y + q[1].y + q[2].y + q[3].y) / 4;
  // Mean of the left (top-left to bottom-left) and right edges: the text height whatever the slant.
  g.height = (Distance(q[0], q[3]) + Distance(q[1], q[2])) / 2;
  return g;
}

std::vector<std::vector<LineGeom>> GroupRows(std::vector<LineGeom> lines) {
  std::sort(lines.begin(), lines.end(), [](const LineGeom& a, const LineGeom& b) {
    if (a.center_y != b.center_y) {
      return a.center_y < b.center_y;
    }
    return a.left != b.left ? a.left < b.left : a.index < b.index;
  });
  std::vector<std::vector<LineGeom>> rows;
  std::size_t begin = 0;
  while (begin < lines.size()) {
    // A row is anchored on its topmost box, so a slow drift of centres cannot chain rows together.
    const LineGeom& anchor = lines[begin];
    std::size_t end = begin + 1;
    while (end < lines.size() &&
           lines[end].center_y - anchor.center_y <
               kSameRowFraction * std::min(anchor.height, lines[end].height)) {
      ++end;
    }
    std::vector<LineGeom> row(lines.begin() + static_cast<std::ptrdiff_t>(begin),
                              lines.begin() + static_cast<std::ptrdiff_t>(end));
    std::sort(row.begin(), row.end(), [](const LineGeom& a, const LineGeom& b) {
      return a.left != b.left ? a.left < b.left : a.index < b.index;
    });
    rows.push_back(std::move(row));
    begin = end;
  }
  return rows;
}

TextRows RowsInReadingOrder(std::span<const pipeline::TextLine> lines,
                            std::span<const std::size_t> order) {
  TextRows rows;
  LineGeom previous;
  for (const std::size_t index : order) {
    const LineGeom g = MeasureLine(lines[index].box, index);
    // Measured from the line before rather than the row's first: the rows of a skewed page, which
    // layout straightened before grouping them, drift along their length.
    const bool same_row = !rows.empty() && g.left >= previous.left &&
                          std::abs(g.center_y - previous.center_y) <
                              kSameRowFraction * std::min(previous.height, g.height);
    if (!same_row)
      rows.emplace_back();
    rows.back().push_back(index);
    previous = g;
  }
  return rows;
}

}  // namespace ocr::layout
