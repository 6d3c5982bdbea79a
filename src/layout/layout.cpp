// Layout analysis of a page (AnalyzeLayout): the page's median line height and slope, the tables
// (asked of tables.h, with the page image's rulings), the blocks' extents, and what layout.h
// declares besides (block types, NormalizeText, ListMarker). Columns and their reading order are
// internal/columns.h's; paragraphs, headings and list items internal/paragraphs.h's.
//
// The geometry works on one axis-aligned summary per line (LineGeom). Every threshold is a
// multiple of the page's median line height, so the same constants hold at any resolution and
// font size, and a few headings or stray boxes do not move them. A page whose lines slope (a
// photo taken slightly askew) is analysed in a frame rotated to straighten them.
#include "layout/layout.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "layout/column_gaps.h"
#include "layout/internal/columns.h"
#include "layout/internal/coordinates.h"
#include "layout/internal/line_ink.h"
#include "layout/internal/paragraphs.h"
#include "layout/internal/table_grid.h"
#include "layout/rulings.h"
#include "layout/shading.h"
#include "layout/tables.h"

namespace ocr::layout {

using internal::AppendColumnBlocks;
using internal::Column;
using internal::PageText;
using internal::SaneCoordinate;
using internal::SplitColumns;
using pipeline::Point;
using pipeline::Quad;
using pipeline::TextLine;

namespace {

// --- Thresholds, in units of the page's median line height (h) unless the name says otherwise.

// A page is straightened for the analysis when its lines slope by more than this (radians, about
// 0.2 degrees): below it, a row drifts less than 0.1 h over 30 h of width. Beyond kMaxSkew the
// slope is not a skewed page but rotated text, which the analysis leaves alone.
constexpr double kMinSkew = 0.0035;
constexpr double kMaxSkew = 0.2;

// A line (or a row of boxes) is long enough to measure the page's slope from when it is this
// many heights wide: two pixels of jitter over 8 h is about 0.5 degrees.
constexpr float kSlopeLineWidth = 8.0F;

// The lines may hold a table (and the page image is worth asking for) when at least this many
// rows hold boxes a cell gap apart.
constexpr int kRowsForTables = 2;
constexpr float kCellGapForImage = 0.8F;

// A lone "o" is a zero in a table column holding at least this many numbers, and numbers in at
// least half of its other cells (its header, a word or two, the rest).
constexpr int kMinNumbersForZero = 3;

// Pixels. A page whose median line is less tall than this has no usable geometry (boxes left
// empty), and a single box is never treated as less tall than this (no division by zero).
constexpr float kMinHeightPx = 1.0F;

// The median, or 0 for no values.
float Median(std::vector<float> values) {
  if (values.empty()) {
    return 0;
  }
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// The page's slope (radians, y down) when it is that of a slightly skewed page, else 0: the
// weighted median of the slopes of long lines' top edges and of the lines joining the centres of
// the outermost boxes of one row (a table's row spans the page while its cells are short), each
// weighted by its length. A short box's own angle is too noisy to count: two pixels of jitter
// over 3 h is more than a degree.
double PageSlope(std::span<const TextLine> lines, const std::vector<LineGeom>& geoms, float h) {
  std::vector<std::pair<double, double>> slopes;  // (slope, weight)
  for (const LineGeom& g : geoms) {
    if (g.right - g.left >= kSlopeLineWidth * h) {
      const Quad& q = lines[g.index].box;
      slopes.emplace_back(std::atan2(q[1].y - q[0].y, q[1].x - q[0].x), g.right - g.left);
    }
  }
  for (const std::vector<LineGeom>& row : GroupRows(geoms)) {
    const LineGeom& first = row.front();
    const LineGeom& last = row.back();
    const double run = last.CenterX() - first.CenterX();
    if (row.size() >= 2 && run >= kSlopeLineWidth * h) {
      slopes.emplace_back(std::atan2(last.center_y - first.center_y, run), run);
    }
  }
  if (slopes.empty()) {
    return 0.0;
  }
  std::sort(slopes.begin(), slopes.end());
  double total = 0;
  for (const auto& [slope, weight] : slopes) {
    total += weight;
  }
  double slope = slopes.back().first;
  double below = 0;
  for (const auto& [s, weight] : slopes) {
    below += weight;
    if (below >= total / 2) {
      slope = s;
      break;
    }
  }
  return std::abs(slope) >= kMinSkew && std::abs(slope) <= kMaxSkew ? slope : 0.0;
}

// Whether enough rows hold boxes a cell gap apart for a table to be possible.
bool MayHoldTable(const std::vector<LineGeom>& geoms, float h) {
  int rows = 0;
  for (const std::vector<LineGeom>& row : GroupRows(geoms)) {
    for (std::size_t i = 0; i + 1 < row.size(); ++i) {
      if (row[i + 1].left - row[i].right >= kCellGapForImage * h) {
        ++rows;
        break;
      }
    }
  }
  return rows >= kRowsForTables;
}

Point Apply(const cv::Matx23d& m, Point p) {
  return Point{static_cast<float>(m(0, 0) * p.x + m(0, 1) * p.y + m(0, 2)),
               static_cast<float>(m(1, 0) * p.x + m(1, 1) * p.y + m(1, 2))};
}

// The block's extent in page pixels: its lines' boxes, and a table's grid mapped back through
// `to_page` from the frame it was found in.
void SetExtent(Block& block, std::span<const TextLine> lines, const cv::Matx23d& to_page) {
  bool any = false;
  auto add = [&](Point p) {
    p.x = SaneCoordinate(p.x);
    p.y = SaneCoordinate(p.y);
    if (!any) {
      block.left = block.right = p.x;
      block.top = block.bottom = p.y;
      any = true;
    }
    block.left = std::min(block.left, p.x);
    block.right = std::max(block.right, p.x);
    block.top = std::min(block.top, p.y);
    block.bottom = std::max(block.bottom, p.y);
  };
  if (block.type == BlockType::kTable) {
    const Table& t = block.table;
    for (Point p : {Point{t.left, t.top}, Point{t.right, t.top}, Point{t.right, t.bottom},
                    Point{t.left, t.bottom}}) {
      add(Apply(to_page, p));
    }
  }
  for (std::size_t index : block.Lines()) {
    for (Point p : lines[index].box) {
      add(p);
    }
  }
}

// The tables among `geoms` (in the analysis frame), with the rulings and shaded bands of the page
// image turned into that frame when `turned`.
std::vector<Table> PageTables(const std::vector<LineGeom>& geoms,
                              const std::vector<std::string>& texts, const PageImage& page_image,
                              const cv::Matx23d& to_frame, bool turned, float h) {
  std::vector<Ruling> rulings;
  std::vector<Band> bands;
  cv::Mat image = page_image ? page_image() : cv::Mat();
  if (!image.empty()) {
    if (turned) {
      cv::Mat straight;
      cv::warpAffine(image, straight, cv::Mat(to_frame), image.size(), cv::INTER_LINEAR,
                     cv::BORDER_REPLICATE);
      image = straight;
    }
    rulings = FindRulings(image, h);
    bands = FindBands(image, h);
  }
  return FindTables(geoms, texts, rulings, bands, h);
}

// The lines' geometry measured again in the frame `to_frame` turns the page into (its heights
// kept at the least the analysis works with).
void StraightenLines(std::span<const TextLine> lines, const cv::Matx23d& to_frame,
                     std::vector<LineGeom>& geoms) {
  for (LineGeom& g : geoms) {
    Quad q = lines[g.index].box;
    for (Point& p : q) {
      p = Apply(to_frame, p);
    }
    g = MeasureLine(q, g.index);
    g.height = std::max(g.height, kMinHeightPx);
  }
}

// What the columns are made of: the lines outside tables, and each table as one box with an index
// past the lines' (`line_count` + its own).
std::vector<LineGeom> FlowBoxes(const std::vector<LineGeom>& geoms,
                                const std::vector<Table>& tables, std::size_t line_count) {
  std::vector<bool> in_table(line_count, false);
  for (const Table& t : tables) {
    for (std::size_t index : t.lines) {
      in_table[index] = true;
    }
  }
  std::vector<LineGeom> flow;
  for (const LineGeom& g : geoms) {
    if (!in_table[g.index]) {
      flow.push_back(g);
    }
  }
  for (std::size_t k = 0; k < tables.size(); ++k) {
    const Table& t = tables[k];
    flow.push_back(
        LineGeom{line_count + k, t.left, t.right, (t.top + t.bottom) / 2, t.bottom - t.top});
  }
  return flow;
}

}  // namespace

std::string_view BlockTypeName(BlockType type) {
  switch (type) {
    case BlockType::kParagraph:
      return "paragraph";
    case BlockType::kHeading:
      return "heading";
    case BlockType::kListItem:
      return "list_item";
    case BlockType::kTable:
      return "table";
  }
  return "paragraph";
}

std::vector<std::size_t> Block::Lines() const {
  std::vector<std::size_t> out;
  const auto append = [&out](const TextRows& text_rows) {
    for (const std::vector<std::size_t>& row : text_rows) {
      out.insert(out.end(), row.begin(), row.end());
    }
  };
  if (type == BlockType::kTable) {
    for (const TableCell& cell : table.cells) {
      append(cell.rows);
    }
  } else {
    append(rows);
  }
  return out;
}

std::string NormalizeText(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r') {
      c = ' ';
    }
  }
  const std::size_t first = out.find_first_not_of(' ');
  if (first == std::string::npos) {
    return {};
  }
  const std::size_t last = out.find_last_not_of(' ');
  return out.substr(first, last - first + 1);
}

std::size_t ListMarker(std::string_view text, int* number) {
  // Bullets printed before an item (•, ·, ▪, ●, ○, ■, □, ◆, ►, –), or typed ones, and a space.
  static constexpr std::array<std::string_view, 12> kBullets = {
      "\u2022", "\u00B7", "\u25AA", "\u25CF", "\u25CB", "\u25A0",
      "\u25A1", "\u25C6", "\u25BA", "\u2013", "-",      "*"};
  for (std::string_view bullet : kBullets) {
    if (text.size() > bullet.size() + 1 && text.starts_with(bullet) && text[bullet.size()] == ' ') {
      return bullet.size() + 1;
    }
  }
  // "1." or "12)" and a space: lists are numbered with one or two digits; "2016. " and "1.5" are
  // not list numbers.
  std::size_t digits = 0;
  while (digits < text.size() && digits < 3 && text[digits] >= '0' && text[digits] <= '9') {
    ++digits;
  }
  if (digits >= 1 && digits <= 2 && text.size() > digits + 2 &&
      (text[digits] == '.' || text[digits] == ')') && text[digits + 1] == ' ') {
    if (number != nullptr) {
      *number = digits == 1 ? text[0] - '0' : (text[0] - '0') * 10 + (text[1] - '0');
      *number = std::max(*number, 0);
    }
    return digits + 2;
  }
  return 0;
}

std::vector<Block> AnalyzeLayout(std::span<const TextLine> lines, const PageImage& page_image) {
  std::vector<std::string> texts(lines.size());
  std::vector<LineGeom> geoms;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    texts[i] = NormalizeText(lines[i].text);
    if (!texts[i].empty()) {
      // A line with no text is left out: an empty box must not split a paragraph, a column or a
      // table.
      geoms.push_back(MeasureLine(lines[i].box, i));
    }
  }
  if (geoms.empty()) {
    return {};
  }
  std::vector<float> heights;
  heights.reserve(geoms.size());
  for (const LineGeom& g : geoms) {
    heights.push_back(g.height);
  }
  const float h = Median(std::move(heights));
  const cv::Matx23d identity(1, 0, 0, 0, 1, 0);
  std::vector<Block> blocks;
  if (h < kMinHeightPx) {
    // No geometry to go on: keep the recognizer's lines, in order, rather than guess a layout.
    for (const LineGeom& g : geoms) {
      Block block;
      block.rows.push_back({g.index});
      SetExtent(block, lines, identity);
      blocks.push_back(std::move(block));
    }
    return blocks;
  }
  for (LineGeom& g : geoms) {
    g.height = std::max(g.height, kMinHeightPx);
  }

  // A skewed page is analysed turned about the origin by its slope, lines and image alike.
  const double slope = PageSlope(lines, geoms, h);
  const double c = std::cos(slope);
  const double s = std::sin(slope);
  const cv::Matx23d to_frame(c, s, 0, -s, c, 0);
  const cv::Matx23d to_page(c, -s, 0, s, c, 0);
  if (slope != 0.0) {
    StraightenLines(lines, to_frame, geoms);
  }

  const std::vector<Table> tables =
      MayHoldTable(geoms, h) ? PageTables(geoms, texts, page_image, to_frame, slope != 0.0, h)
                             : std::vector<Table>();
  const PageText page{texts, tables, h};
  for (const Column& column : SplitColumns(FlowBoxes(geoms, tables, lines.size()), h, 0)) {
    AppendColumnBlocks(column, page, blocks);
  }
  for (Block& block : blocks) {
    SetExtent(block, lines, slope != 0.0 ? to_page : identity);
  }
  return blocks;
}

namespace {

// A zero alone in a cell of a column of numbers, read as the letter o: the recognizer sees the one
// glyph scaled to its fixed height, which loses the only difference between them (a zero stands
// as tall as the digits, an o as the lower-case letters).
void ReadLoneZeros(const std::vector<Block>& blocks, std::vector<TextLine>& lines) {
  for (const Block& block : blocks) {
    if (block.type != BlockType::kTable)
      continue;
    std::vector<int> numbers(static_cast<std::size_t>(block.table.col_count), 0);
    std::vector<int> filled(numbers.size(), 0);
    std::vector<int> rounds(numbers.size(), 0);
    std::vector<std::pair<std::size_t, std::size_t>> round;  // (column, line) of lone o's
    for (const TableCell& cell : block.table.cells) {
      if (cell.rows.empty() || cell.col_span != 1)
        continue;
      const auto col = static_cast<std::size_t>(cell.col);
      ++filled[col];
      std::string text;
      for (const std::vector<std::size_t>& row : cell.rows) {
        for (const std::size_t i : row)
          text += (text.empty() ? "" : " ") + NormalizeText(lines[i].text);
      }
      if (internal::IsNumeric(text)) {
        ++numbers[col];
      } else if ((text == "o" || text == "O") && cell.rows.size() == 1 &&
                 cell.rows[0].size() == 1) {
        round.emplace_back(col, cell.rows[0][0]);
        ++rounds[col];
      }
    }
    for (const auto& [c, i] : round) {
      if (numbers[c] >= kMinNumbersForZero && 2 * numbers[c] >= filled[c] - rounds[c]) {
        lines[i].text = "0";
        for (pipeline::Word& w : lines[i].words)
          w.text = "0";
      }
    }
  }
}

}  // namespace

std::vector<Block> AnalyzeOcrLayout(std::vector<TextLine>& lines, const cv::Mat& image) {
  internal::InkLines ink = internal::FitToInk(lines, image);
  const ColumnCuts cuts = FindColumnGaps(ink.lines, ink.text_height, false);
  lines = CutLines(std::move(lines), cuts);
  std::vector<Block> blocks =
      AnalyzeLayout(CutLines(std::move(ink.lines), cuts), [&image]() { return image; });
  ReadLoneZeros(blocks, lines);
  return blocks;
}

}  // namespace ocr::layout
