#include "document/text_layer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/unicode_fold.h"
#include "common/utf8.h"
#include "layout/column_gaps.h"

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
  lines.reserve(builders.size());
  for (const LineBuilder& b : builders)
    lines.push_back(Finish(b));
  const layout::ColumnCuts cuts = layout::FindColumnGaps(lines, typical_height, true);
  return layout::CutLines(std::move(lines), cuts);
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
