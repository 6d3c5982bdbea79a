#include "layout/column_gaps.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "layout/internal/table_grid.h"

namespace ocr::layout {
namespace {

using internal::IsNumeric;
using pipeline::Quad;
using pipeline::TextLine;

// A line is cut at a word gap this many typical heights wide or wider when the gap is a column
// gap: a channel of whitespace at least as wide runs through it and through at least
// kMinChannelRows other rows next to it (no further apart than kMaxChannelRowGap), with words on
// both sides of it in at least two of them. The numbers of a dense statistical table sit about
// 0.7 heights apart, closer than a text layer's column gap; a word space is a quarter of a
// height, and the wider spaces of justified prose do not line up over four rows.
constexpr double kMinChannelInHeights = 0.5;
constexpr int kMinChannelRows = 3;
constexpr double kMaxChannelRowGap = 2.0;
// A column gap beside a word of letters is also this many word spaces wide: a monospaced font's
// space is most of a height, and its words line up from row to row ("1 years", "2 years"); two
// numbers side by side in such a channel are two cells, even a space apart. A line's word space is
// the narrow end (kSpacePercentile) of the gaps beside words of letters in lines of its size
// (heights within kSameSize of its own).
constexpr double kMinChannelInSpaces = 1.8;
constexpr double kSpacePercentile = 0.1;
constexpr double kSameSize = 0.15;
// A line whose top edge rises or falls more than this per unit of its length is not upright
// (a scan's skew of a degree or two is).
constexpr double kMaxSlant = 0.05;

struct Bounds {
  double x0, y0, x1, y1;
};

Bounds BoundsOf(const Quad& q) {
  Bounds b{q[0].x, q[0].y, q[0].x, q[0].y};
  for (const pipeline::Point& p : q) {
    b.x0 = std::min<double>(b.x0, p.x);
    b.y0 = std::min<double>(b.y0, p.y);
    b.x1 = std::max<double>(b.x1, p.x);
    b.y1 = std::max<double>(b.y1, p.y);
  }
  return b;
}

bool IsAxisAligned(const Quad& q) {
  return q[0].y == q[1].y && q[1].x == q[2].x && q[2].y == q[3].y && q[3].x == q[0].x;
}

// A row of upright lines: its vertical extent and the horizontal extents of its words, sorted.
struct InkRow {
  double top = 0;
  double bottom = 0;
  std::vector<std::pair<double, double>> ink;
};

// The widest part of [from, to] that no word of `row` covers and that touches no word of it
// either side: the channel narrowed to the row's own whitespace (empty when a word covers it).
std::pair<double, double> FreePart(const InkRow& row, double from, double to) {
  std::pair<double, double> best{0, 0};
  double start = from;
  for (const auto& [x0, x1] : row.ink) {
    if (x1 <= start)
      continue;
    if (x0 >= to)
      break;
    if (x0 - start > best.second - best.first)
      best = {start, x0};
    start = std::max(start, x1);
  }
  if (to - start > best.second - best.first)
    best = {start, to};
  return best;
}

bool InkOnBothSides(const InkRow& row, double from, double to) {
  return !row.ink.empty() && row.ink.front().first < from && row.ink.back().second > to;
}

// Whether the gap [from, to] of row `r` is a column gap (kMinChannelRows).
bool ColumnGap(const std::vector<InkRow>& rows, std::size_t r, double from, double to,
               double height) {
  int rows_through = 0;
  int both_sides = 0;
  for (const int step : {-1, 1}) {
    std::pair<double, double> channel{from, to};
    std::size_t last = r;
    for (auto i = static_cast<std::ptrdiff_t>(r) + step;
         i >= 0 && i < static_cast<std::ptrdiff_t>(rows.size()); i += step) {
      const InkRow& row = rows[static_cast<std::size_t>(i)];
      const double gap = step > 0 ? row.top - rows[last].bottom : rows[last].top - row.bottom;
      if (gap > kMaxChannelRowGap * height)
        break;
      channel = FreePart(row, channel.first, channel.second);
      if (channel.second - channel.first < kMinChannelInHeights * height)
        break;
      ++rows_through;
      both_sides += InkOnBothSides(row, channel.first, channel.second) ? 1 : 0;
      last = static_cast<std::size_t>(i);
    }
  }
  return rows_through >= kMinChannelRows && both_sides >= 2;
}

// The text and box of `part`, from its words; `slanted` keeps the line's slant rather than the
// box around the words.
void FinishPart(TextLine& part, bool slanted) {
  part.text.clear();
  for (const pipeline::Word& w : part.words)
    part.text += (part.text.empty() ? "" : " ") + w.text;
  if (slanted) {
    const Quad& first = part.words.front().box;
    const Quad& last = part.words.back().box;
    part.box = {first[0], last[1], last[2], first[3]};
    return;
  }
  Bounds b = BoundsOf(part.words.front().box);
  for (const pipeline::Word& w : part.words) {
    const Bounds wb = BoundsOf(w.box);
    b = {std::min(b.x0, wb.x0), std::min(b.y0, wb.y0), std::max(b.x1, wb.x1),
         std::max(b.y1, wb.y1)};
  }
  const auto x0 = static_cast<float>(b.x0);
  const auto y0 = static_cast<float>(b.y0);
  const auto x1 = static_cast<float>(b.x1);
  const auto y1 = static_cast<float>(b.y1);
  part.box = {pipeline::Point{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
}

// The word space of lines `height` tall (kMinChannelInSpaces), from the word gaps `gaps` of the
// page's upright lines as (line height, gap), sorted.
double WordSpace(const std::vector<std::pair<double, double>>& gaps, double height) {
  const auto from =
      std::lower_bound(gaps.begin(), gaps.end(), std::pair{height * (1 - kSameSize), -HUGE_VAL});
  const auto to =
      std::upper_bound(gaps.begin(), gaps.end(), std::pair{height * (1 + kSameSize), HUGE_VAL});
  std::vector<double> near;
  for (auto it = from; it != to; ++it)
    near.push_back(it->second);
  if (near.empty())
    return 0;
  const auto nth = near.begin() +
                   static_cast<std::ptrdiff_t>(kSpacePercentile * static_cast<double>(near.size()));
  std::nth_element(near.begin(), nth, near.end());
  return *nth;
}

bool HasLetter(const std::string& text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c & 0x80) != 0;
  });
}

}  // namespace

bool IsUpright(const Quad& q) {
  const double dx = q[1].x - q[0].x;
  return dx > 0 && std::abs(q[1].y - q[0].y) <= kMaxSlant * dx && q[3].y > q[0].y;
}

ColumnCuts FindColumnGaps(const std::vector<TextLine>& lines, double height, bool beside_letters) {
  ColumnCuts cuts(lines.size());
  if (!std::isfinite(height))
    return cuts;
  std::vector<std::size_t> upright;
  std::vector<Bounds> bounds(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (IsUpright(lines[i].box) && !lines[i].words.empty()) {
      upright.push_back(i);
      bounds[i] = BoundsOf(lines[i].box);
    }
  }
  // Word spaces sit beside words of letters; two numbers side by side are more often two cells.
  std::vector<std::pair<double, double>> gaps;
  for (const std::size_t i : upright) {
    const std::vector<pipeline::Word>& words = lines[i].words;
    for (std::size_t k = 1; k < words.size(); ++k) {
      if (HasLetter(words[k - 1].text) || HasLetter(words[k].text))
        gaps.emplace_back(bounds[i].y1 - bounds[i].y0,
                          BoundsOf(words[k].box).x0 - BoundsOf(words[k - 1].box).x1);
    }
  }
  std::sort(gaps.begin(), gaps.end());
  std::sort(upright.begin(), upright.end(), [&](std::size_t a, std::size_t b) {
    return bounds[a].y0 + bounds[a].y1 < bounds[b].y0 + bounds[b].y1;
  });
  // Rows: lines whose centres are within half a height of the row's first line.
  std::vector<InkRow> rows;
  std::vector<std::size_t> row_of(lines.size(), 0);
  double anchor = 0;
  for (const std::size_t i : upright) {
    const Bounds& b = bounds[i];
    const double center = (b.y0 + b.y1) / 2;
    if (rows.empty() || center - anchor >= 0.5 * std::min(height, b.y1 - b.y0)) {
      rows.push_back({b.y0, b.y1, {}});
      anchor = center;
    }
    InkRow& row = rows.back();
    row.top = std::min(row.top, b.y0);
    row.bottom = std::max(row.bottom, b.y1);
    for (const pipeline::Word& w : lines[i].words) {
      const Bounds wb = BoundsOf(w.box);
      row.ink.emplace_back(wb.x0, wb.x1);
    }
    row_of[i] = rows.size() - 1;
  }
  for (InkRow& row : rows)
    std::sort(row.ink.begin(), row.ink.end());
  for (const std::size_t i : upright) {
    const TextLine& line = lines[i];
    // Most gaps are word spaces, narrower than any column gap: the word space of the line's
    // size is only looked up for the gaps wide enough to need it.
    std::optional<double> widest;
    for (std::size_t k = 1; k < line.words.size(); ++k) {
      const double from = BoundsOf(line.words[k - 1].box).x1;
      const double to = BoundsOf(line.words[k].box).x0;
      if (to - from < kMinChannelInHeights * height ||
          !ColumnGap(rows, row_of[i], from, to, height))
        continue;
      const bool numbers = IsNumeric(line.words[k - 1].text) && IsNumeric(line.words[k].text);
      if (!numbers && !beside_letters)
        continue;
      if (!numbers && !widest)
        widest = kMinChannelInSpaces * WordSpace(gaps, bounds[i].y1 - bounds[i].y0);
      if (numbers || to - from >= *widest)
        cuts[i].push_back(k);
    }
  }
  return cuts;
}

std::vector<TextLine> CutLines(std::vector<TextLine> lines, const ColumnCuts& cuts) {
  std::vector<TextLine> out;
  out.reserve(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    TextLine& line = lines[i];
    if (i >= cuts.size() || cuts[i].empty()) {
      out.push_back(std::move(line));
      continue;
    }
    const bool slanted = !IsAxisAligned(line.box);
    std::vector<pipeline::Word> words = std::move(line.words);
    std::size_t start = 0;
    for (std::size_t p = 0; p <= cuts[i].size(); ++p) {
      const std::size_t end = p < cuts[i].size() ? cuts[i][p] : words.size();
      TextLine part{"", line.confidence, line.box, {}};
      part.words.assign(std::make_move_iterator(words.begin() + static_cast<std::ptrdiff_t>(start)),
                        std::make_move_iterator(words.begin() + static_cast<std::ptrdiff_t>(end)));
      FinishPart(part, slanted);
      out.push_back(std::move(part));
      start = end;
    }
  }
  return out;
}

}  // namespace ocr::layout
