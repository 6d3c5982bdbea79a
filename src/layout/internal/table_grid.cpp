// A table grid's boundaries from positions and from text: clustering of positions, the interval
// of a position, the gutters between columns of lines and the text rows with wrapped cells
// merged into the row above.
//
// Thresholds are in units of the page's median line height (h), as in layout.cpp.
#include "layout/internal/table_grid.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

namespace ocr::layout::internal {
namespace {

// A gutter (a vertical channel of whitespace through a table's rows) is at least this wide: a
// tightly set table (a monospaced font, little padding) keeps its columns about a third of a
// line apart, and the detector already joins the words of one phrase into one box.
constexpr float kMinGutter = 0.35F;

// Lines of one cell set alike have their left, centre or right edges this close (detector
// jitter).
constexpr float kWrapAlign = 0.5F;

// A wrapped cell's next line is closer to the line above than this fraction of the table's gap
// between rows, or than kWrapGap.
constexpr float kWrapGapOfRowGap = 0.6F;

// A numeric cell: at least this fraction of its non-space characters are digits.
constexpr float kNumericDigits = 0.5F;

}  // namespace

bool IsNumeric(std::string_view text) {
  std::size_t digits = 0;
  std::size_t other = 0;
  bool dash = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    // U+2013, U+2014 (E2 80 93/94) and U+2212 (E2 88 92): dashes and the minus sign.
    const std::string_view rest = text.substr(i);
    if (rest.starts_with("\xE2\x80\x93") || rest.starts_with("\xE2\x80\x94") ||
        rest.starts_with("\xE2\x88\x92")) {
      dash = true;
      i += 2;
    } else if (c >= '0' && c <= '9') {
      ++digits;
    } else if (c == '-') {
      dash = true;
    } else if (std::string_view("+.,%$()/:* ").find(c) == std::string_view::npos) {
      ++other;
    }
  }
  if (digits == 0) {
    return other == 0 && dash;
  }
  return static_cast<float>(digits) >= kNumericDigits * static_cast<float>(digits + other);
}

float RowTop(const std::vector<LineGeom>& row) {
  float top = row.front().Top();
  for (const LineGeom& g : row) {
    top = std::min(top, g.Top());
  }
  return top;
}

float RowBottom(const std::vector<LineGeom>& row) {
  float bottom = row.front().Bottom();
  for (const LineGeom& g : row) {
    bottom = std::max(bottom, g.Bottom());
  }
  return bottom;
}

float UpperMedian(std::vector<float> values) {
  if (values.empty()) {
    return 0;
  }
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

float WrapGap(std::span<const std::vector<LineGeom>> rows, float h) {
  // The table's own spacing: the median gap above a row holding several cells. A wrapped cell's
  // next line sits closer than its rows do, whatever the leading (the tight boxes of a PDF's text
  // layer leave a line of leading wider than kWrapGap).
  std::vector<float> row_gaps;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (rows[i].size() >= 2) {
      row_gaps.push_back(RowTop(rows[i]) - RowBottom(rows[i - 1]));
    }
  }
  if (row_gaps.empty()) {
    return kWrapGap * h;
  }
  return std::max(kWrapGap * h, kWrapGapOfRowGap * UpperMedian(std::move(row_gaps)));
}

std::vector<float> Cluster(std::vector<float> values, float tolerance) {
  std::sort(values.begin(), values.end());
  std::vector<float> out;
  std::size_t begin = 0;
  while (begin < values.size()) {
    std::size_t end = begin + 1;
    while (end < values.size() && values[end] - values[end - 1] <= tolerance) {
      ++end;
    }
    out.push_back(std::accumulate(values.begin() + static_cast<std::ptrdiff_t>(begin),
                                  values.begin() + static_cast<std::ptrdiff_t>(end), 0.0F) /
                  static_cast<float>(end - begin));
    begin = end;
  }
  return out;
}

int IntervalOf(const std::vector<float>& bounds, float v) {
  if (bounds.size() < 3) {
    return 0;
  }
  const auto it = std::upper_bound(bounds.begin(), bounds.end(), v);
  const auto i = static_cast<int>(it - bounds.begin()) - 1;
  return std::clamp(i, 0, static_cast<int>(bounds.size()) - 2);
}

std::vector<float> Gutters(const std::vector<LineGeom>& lines, float left, float right,
                           std::size_t allowed_crossers, float h) {
  std::vector<std::pair<float, int>> events;
  events.reserve(lines.size() * 2);
  for (const LineGeom& g : lines) {
    events.emplace_back(g.left, +1);
    events.emplace_back(g.right, -1);
  }
  std::sort(events.begin(), events.end());
  std::vector<float> out;
  int count = 0;
  float open = 0;  // start of the current low-coverage run, once a line has ended before it
  bool is_open = false;
  for (const auto& [x, delta] : events) {
    const bool was_low = count <= static_cast<int>(allowed_crossers);
    count += delta;
    const bool low = count <= static_cast<int>(allowed_crossers);
    if (!was_low && low) {
      open = x;
      is_open = true;
    } else if (was_low && !low && is_open) {
      if (x - open >= kMinGutter * h && open > left && x < right) {
        out.push_back((open + x) / 2);
      }
      is_open = false;
    }
  }
  return out;
}

bool Aligned(const LineGeom& a, const LineGeom& b, float h) {
  return std::abs(a.left - b.left) <= kWrapAlign * h ||
         std::abs(a.CenterX() - b.CenterX()) <= kWrapAlign * h ||
         std::abs(a.right - b.right) <= kWrapAlign * h;
}

std::vector<std::vector<LineGeom>> MergedTextRows(const std::vector<LineGeom>& lines,
                                                  const std::vector<float>& xs, float h) {
  std::vector<std::vector<LineGeom>> rows = GroupRows(lines);
  const std::size_t columns = xs.size() - 1;
  const float wrap_gap = WrapGap(rows, h);
  std::vector<std::vector<LineGeom>> merged;
  for (std::vector<LineGeom>& row : rows) {
    if (!merged.empty()) {
      const std::vector<LineGeom>& above = merged.back();
      bool continues = RowTop(row) - RowBottom(above) < wrap_gap && 2 * row.size() < columns;
      for (const LineGeom& g : row) {
        continues =
            continues && std::any_of(above.begin(), above.end(), [&](const LineGeom& a) {
              return IntervalOf(xs, a.CenterX()) == IntervalOf(xs, g.CenterX()) && Aligned(a, g, h);
            });
      }
      if (continues) {
        merged.back().insert(merged.back().end(), row.begin(), row.end());
        continue;
      }
    }
    merged.push_back(std::move(row));
  }
  return merged;
}

std::vector<float> TextRowBounds(const std::vector<LineGeom>& lines, const std::vector<float>& xs,
                                 float top, float bottom, float h) {
  const std::vector<std::vector<LineGeom>> merged = MergedTextRows(lines, xs, h);
  std::vector<float> ys = {top};
  for (std::size_t i = 0; i + 1 < merged.size(); ++i) {
    ys.push_back((RowBottom(merged[i]) + RowTop(merged[i + 1])) / 2);
  }
  ys.push_back(bottom);
  return ys;
}

}  // namespace ocr::layout::internal
