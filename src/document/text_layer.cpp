#include "document/text_layer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/unicode_fold.h"
#include "common/utf8.h"
#include "document/internal/table_grid.h"

namespace ocr::document {
namespace {

// Words further apart than this many line heights along the reading direction start a new line
// (a column gap); closer words, even without a space in the layer, are joined.
constexpr double kMaxGapInLineHeights = 1.5;
// Words further apart than this, with no space between them in the layer, are two cells of a
// table row (or two columns): a layer writes the space between the words of a phrase, even a
// monospaced one (0.6 em, which is most of a tight line's height), but not between cells, which
// are separate runs of text set an em or more apart.
constexpr double kCellGapInLineHeights = 0.8;
// A gap wider than this many line heights reads as a space even when the layer has none.
constexpr double kSpaceGapInLineHeights = 0.25;
// Two boxes are on one row when they overlap across the reading direction by this fraction of
// the smaller one.
constexpr double kMinRowOverlap = 0.5;
// A word may start this many line heights before the previous one ends (kerning, overlap).
constexpr double kMaxStepBackInLineHeights = 0.5;
// A line is cut at a word gap this many typical heights wide or wider when the gap is a column
// gap: a channel of whitespace at least as wide runs through it and through at least
// kMinChannelRows other rows next to it (no further apart than kMaxChannelRowGap), with words on
// both sides of it in at least two of them. The numbers of a dense statistical table sit about
// 0.7 heights apart, closer than kMaxGapInLineHeights; a word space is a quarter of a height,
// and the wider spaces of justified prose do not line up over four rows.
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

struct LayerBox {
  double x0, y0, x1, y1;
};

// A box in the reading frame of `rotation`: `start`/`end` along the reading direction,
// `lo`/`hi` across it.
struct Span {
  double start, end, lo, hi;
};

Span ToReadingFrame(const LayerBox& b, int rotation) {
  switch (rotation) {
    case 1:
      return {b.y0, b.y1, b.x0, b.x1};
    case 2:
      return {-b.x1, -b.x0, b.y0, b.y1};
    case 3:
      return {-b.y1, -b.y0, b.x0, b.x1};
    default:
      return {b.x0, b.x1, b.y0, b.y1};
  }
}

// A word of a line as the line's text spells it: layer words joined without a space are one.
struct WordBuilder {
  std::string text;
  LayerBox box{};
};

LayerBox Union(const LayerBox& a, const LayerBox& b) {
  return {std::min(a.x0, b.x0), std::min(a.y0, b.y0), std::max(a.x1, b.x1), std::max(a.y1, b.y1)};
}

struct LineBuilder {
  std::string text;
  LayerBox box{};
  int rotation = 0;
  double end = 0;  // reading-frame end of the last word
  bool space_after = false;
  std::vector<WordBuilder> words;

  Span Frame() const { return ToReadingFrame(box, rotation); }
};

// Whether `w` continues `line`: same rotation, overlapping rows, and a gap along the line that is
// a word space (with a space in the layer before `w`) or closer than a cell gap (without). Gaps
// are measured in the words' height, at most `typical_height` (the page's median word height): a
// font whose boxes are much taller than its letters (a bold header face with tall metrics) must
// not widen them into cell gaps, and a title's word spaces stay far below it.
bool Continues(const LineBuilder& line, const pdf::Word& w, const LayerBox& wb,
               double typical_height) {
  if (w.rotation != line.rotation)
    return false;
  const Span l = line.Frame();
  const Span s = ToReadingFrame(wb, w.rotation);
  const double line_height = std::min(std::max(l.hi - l.lo, s.hi - s.lo), typical_height);
  const double overlap = std::min(l.hi, s.hi) - std::max(l.lo, s.lo);
  if (overlap < kMinRowOverlap * std::min(l.hi - l.lo, s.hi - s.lo))
    return false;
  const double gap = s.start - line.end;
  const double max_gap = line.space_after ? kMaxGapInLineHeights : kCellGapInLineHeights;
  return gap >= -kMaxStepBackInLineHeights * line_height && gap <= max_gap * line_height;
}

// Corners of `b` clockwise from the top-left in image coordinates, rotated so that the quad
// starts at the top-left corner of text read in direction `rotation`.
pipeline::Quad QuadOf(const LayerBox& b, int rotation) {
  const auto x0 = static_cast<float>(b.x0);
  const auto y0 = static_cast<float>(b.y0);
  const auto x1 = static_cast<float>(b.x1);
  const auto y1 = static_cast<float>(b.y1);
  const std::array<pipeline::Point, 4> corners = {pipeline::Point{x0, y0}, pipeline::Point{x1, y0},
                                                  pipeline::Point{x1, y1}, pipeline::Point{x0, y1}};
  pipeline::Quad q;
  for (std::size_t i = 0; i < 4; ++i) {
    q[i] = corners[(i + static_cast<std::size_t>(rotation)) % 4];
  }
  return q;
}

pipeline::TextLine Finish(const LineBuilder& line) {
  pipeline::TextLine out;
  out.text = line.text;
  out.confidence = 1.0F;
  out.box = QuadOf(line.box, line.rotation);
  for (const WordBuilder& w : line.words)
    out.words.push_back({w.text, 1.0F, QuadOf(w.box, line.rotation)});
  return out;
}

bool IsSpace(char32_t cp) {
  return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\f' || cp == '\v' ||
         cp == 0xA0 || cp == 0x3000 || (cp >= 0x2000 && cp <= 0x200B);
}

bool IsGarbage(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0xFFFD ||
         (cp >= 0xE000 && cp <= 0xF8FF) || cp >= 0xF0000 || (cp >= 0xD800 && cp <= 0xDFFF);
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

// `line` without its words from `first` on, and those words as a line of their own.
LineBuilder CutOff(LineBuilder& line, std::size_t first) {
  LineBuilder rest{"", line.words[first].box, line.rotation, line.end, line.space_after, {}};
  rest.words.assign(line.words.begin() + static_cast<std::ptrdiff_t>(first), line.words.end());
  line.words.resize(first);
  for (LineBuilder* part : {&line, &rest}) {
    part->text.clear();
    part->box = part->words.front().box;
    for (const WordBuilder& w : part->words) {
      part->text += (part->text.empty() ? "" : " ") + w.text;
      part->box = Union(part->box, w.box);
    }
  }
  return rest;
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

// Cuts upright lines at their column gaps (ColumnGap): a table's cells set closer than a column
// gap of the page, joined into one line by their spaces, are cells again.
std::vector<LineBuilder> CutAtColumnGaps(std::vector<LineBuilder> lines, double height) {
  if (!std::isfinite(height))
    return lines;
  // Word spaces sit beside words of letters; two numbers side by side are more often two cells.
  const auto has_letter = [](const std::string& text) {
    return std::any_of(text.begin(), text.end(), [](char c) {
      return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c & 0x80) != 0;
    });
  };
  std::vector<std::pair<double, double>> gaps;
  for (const LineBuilder& line : lines) {
    for (std::size_t k = 1; line.rotation == 0 && k < line.words.size(); ++k) {
      if (has_letter(line.words[k - 1].text) || has_letter(line.words[k].text))
        gaps.emplace_back(line.box.y1 - line.box.y0,
                          line.words[k].box.x0 - line.words[k - 1].box.x1);
    }
  }
  std::sort(gaps.begin(), gaps.end());
  std::vector<std::size_t> upright;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rotation == 0)
      upright.push_back(i);
  }
  std::sort(upright.begin(), upright.end(), [&](std::size_t a, std::size_t b) {
    return lines[a].box.y0 + lines[a].box.y1 < lines[b].box.y0 + lines[b].box.y1;
  });
  // Rows: lines whose centres are within half a height of the row's first line.
  std::vector<InkRow> rows;
  std::vector<std::size_t> row_of(lines.size(), 0);
  double anchor = 0;
  for (std::size_t i : upright) {
    const LayerBox& b = lines[i].box;
    const double center = (b.y0 + b.y1) / 2;
    if (rows.empty() || center - anchor >= 0.5 * std::min(height, b.y1 - b.y0)) {
      rows.push_back({b.y0, b.y1, {}});
      anchor = center;
    }
    InkRow& row = rows.back();
    row.top = std::min(row.top, b.y0);
    row.bottom = std::max(row.bottom, b.y1);
    for (const WordBuilder& w : lines[i].words)
      row.ink.emplace_back(w.box.x0, w.box.x1);
    row_of[i] = rows.size() - 1;
  }
  for (InkRow& row : rows)
    std::sort(row.ink.begin(), row.ink.end());
  std::vector<LineBuilder> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    LineBuilder line = std::move(lines[i]);
    std::vector<LineBuilder> parts;
    if (line.rotation == 0 && line.words.size() > 1) {
      // Most gaps are word spaces, narrower than any column gap: the word space of the line's
      // size is only looked up for the gaps wide enough to need it.
      std::optional<double> widest;
      for (std::size_t k = line.words.size(); k-- > 1;) {
        const double from = line.words[k - 1].box.x1;
        const double to = line.words[k].box.x0;
        if (to - from < kMinChannelInHeights * height ||
            !ColumnGap(rows, row_of[i], from, to, height))
          continue;
        const bool numbers =
            internal::IsNumeric(line.words[k - 1].text) && internal::IsNumeric(line.words[k].text);
        if (!numbers && !widest)
          widest = kMinChannelInSpaces * WordSpace(gaps, line.box.y1 - line.box.y0);
        if (numbers || to - from >= *widest)
          parts.push_back(CutOff(line, k));
      }
    }
    out.push_back(std::move(line));
    out.insert(out.end(), std::make_move_iterator(parts.rbegin()),
               std::make_move_iterator(parts.rend()));
  }
  return out;
}

}  // namespace

std::vector<pipeline::TextLine> GroupIntoLines(std::span<const pdf::Word> words) {
  std::vector<double> heights;
  for (const pdf::Word& w : words) {
    const double height = (w.rotation % 2 == 0) ? std::abs(w.y1 - w.y0) : std::abs(w.x1 - w.x0);
    if (!w.text.empty() && height > 0)
      heights.push_back(height);
  }
  double typical_height = std::numeric_limits<double>::infinity();
  if (!heights.empty()) {
    std::nth_element(heights.begin(),
                     heights.begin() + static_cast<std::ptrdiff_t>(heights.size() / 2),
                     heights.end());
    typical_height = heights[heights.size() / 2];
  }
  std::vector<LineBuilder> builders;
  std::optional<LineBuilder> line;
  for (const pdf::Word& w : words) {
    const LayerBox wb{std::min(w.x0, w.x1), std::min(w.y0, w.y1), std::max(w.x0, w.x1),
                      std::max(w.y0, w.y1)};
    if (w.text.empty() || wb.x1 <= wb.x0 || wb.y1 <= wb.y0)
      continue;
    const int rotation = ((w.rotation % 4) + 4) % 4;
    pdf::Word word = w;
    word.rotation = rotation;
    if (line && Continues(*line, word, wb, typical_height)) {
      const Span s = ToReadingFrame(wb, rotation);
      const Span l = line->Frame();
      const double line_height = std::max(l.hi - l.lo, s.hi - s.lo);
      if (line->space_after || s.start - line->end > kSpaceGapInLineHeights * line_height) {
        line->text += ' ';
        line->words.push_back({w.text, wb});
      } else {
        line->words.back().text += w.text;
        line->words.back().box = Union(line->words.back().box, wb);
      }
      line->text += w.text;
      line->box = Union(line->box, wb);
      line->end = std::max(line->end, s.end);
      line->space_after = w.space_after;
      continue;
    }
    if (line)
      builders.push_back(std::move(*line));
    const double end = ToReadingFrame(wb, rotation).end;
    line = LineBuilder{w.text, wb, rotation, end, w.space_after, {WordBuilder{w.text, wb}}};
  }
  if (line)
    builders.push_back(std::move(*line));
  std::vector<pipeline::TextLine> lines;
  for (const LineBuilder& b : CutAtColumnGaps(std::move(builders), typical_height))
    lines.push_back(Finish(b));
  return lines;
}

bool IsUsableTextLayer(std::span<const pipeline::TextLine> lines) {
  int good = 0;
  int bad = 0;
  for (const pipeline::TextLine& line : lines) {
    std::size_t i = 0;
    while (i < line.text.size()) {
      const std::optional<char32_t> cp = NextCodePoint(line.text, i);
      if (cp && IsSpace(*cp))
        continue;
      if (!cp || IsGarbage(*cp)) {
        ++bad;
      } else {
        ++good;
      }
    }
  }
  return good >= kMinUsableChars && good * 10 >= (good + bad) * 9;
}

Result<TextLayerPage> ReadTextLayer(const pdf::PdfDocument& document, int page) {
  OCR_ASSIGN_OR_RETURN(std::vector<pdf::Word> words, document.Words(page));
  // Look-alike code points of the layer (Kangxi radicals for Han characters) say what they mean.
  for (pdf::Word& w : words)
    w.text = FoldCompatibilityIdeographs(w.text);
  TextLayerPage out;
  out.lines = GroupIntoLines(words);
  out.usable = IsUsableTextLayer(out.lines);
  return out;
}

}  // namespace ocr::document
