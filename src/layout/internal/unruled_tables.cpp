// Unruled tables: candidate runs of rows with cell gaps (UnruledRuns), and the grid, cells and
// checks that make a run a table (UnruledTable).
//
// Thresholds are in units of the page's median line height (h), as in layout.cpp.
#include "layout/internal/unruled_tables.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "layout/internal/table_cells.h"
#include "layout/internal/table_grid.h"
#include "layout/internal/table_header.h"

namespace ocr::layout::internal {
namespace {

// Boxes of one row at least this far apart are separate cells. The detector joins the words of
// one phrase into one box (word gaps are about 0.3-0.5 h), so a wider gap is a column gap.
constexpr float kCellGap = 0.8F;

// The detector may break one cell's phrase in two at a word space (about 0.2 h); the cells of
// the densest table, cut apart at half a text height (column_gaps.h), are at least 0.35 h apart.
// Boxes closer than this are parts of one cell.
constexpr float kPhraseBreak = 0.3F;

// Rows of one unruled table are at most this far apart (the padding of a loose table is about
// 1 h); a larger gap ends the table unless its rows line up (below).
constexpr float kMaxRowGap = 1.6F;

// Rows of a loosely set table (wide padding, or the tight boxes of a PDF's text layer) are up to
// this far apart, when both rows hold cells and line up with each other in at least
// kMinAlignedCells places (as many as an unruled table has columns): prose and headings around a
// table hold no cells, a second table does not line up with the first, and a pair of fields above
// a table (a receipt's number and cashier) lines up in two places at most.
constexpr float kMaxLooseRowGap = 3.0F;
constexpr int kMinAlignedCells = 3;

// Rows with a single box may sit between rows of cells (the second and third lines of a wrapped
// cell, a heading row inside the table); more of them in a row than this end the table.
constexpr std::size_t kMaxSingleRows = 3;

// An unruled table has at least this many rows and columns. Two columns without rules are
// indistinguishable from a form of label/value pairs, a receipt or two columns of text: they stay
// paragraphs unless rulings bound them.
constexpr int kMinUnruledRows = 3;
constexpr int kMinUnruledColumns = 3;

// Of an unruled table's rows, at least this fraction hold two or more cells, and of its grid
// cells at least this fraction hold text: a sparse, scattered layout is not a grid.
constexpr float kMinMultiCellRows = 0.7F;
constexpr float kMinFilledCells = 0.5F;

// Cells are narrow: a region whose median line is wider than this is text set in columns (a
// newspaper page, a dense two- or three-column listing), not a table. Table cells hold a number,
// a name or a code (2-6 h); a column of prose is 15 h or more.
constexpr float kMaxMedianCellWidth = 8.0F;

// Rules and band edges across at least this fraction of a table's width divide its rows (a
// cmidrule under a group heading does not).
constexpr float kRowRuleWidth = 0.6F;

// A rule or band edge divides two text rows when it lies in the gap between them, give or take
// this much (a band's edge sits in the padding, a rule near the middle of it).
constexpr float kSeparatorSlack = 0.3F;

// An outer column of the candidate rows whose median line is this wide is a column of prose the
// table sits beside, not a column of cells, unless it starts its lines in the rows of the cells
// beside it (a column of wrapped remarks). Also: a row of lines this wide, each across two cells
// of the row of cells above it, is prose, which ends a run of table rows (a paragraph between two
// tables, the two columns of text under one).
constexpr float kMinProseWidth = 15.0F;
constexpr float kMinSharedRows = 0.75F;

// Whether two boxes of a row (sorted left to right) are apart like cells.
bool HasCellGap(const std::vector<LineGeom>& row, float h) {
  for (std::size_t i = 0; i + 1 < row.size(); ++i) {
    if (row[i + 1].left - row[i].right >= kCellGap * h) {
      return true;
    }
  }
  return false;
}

Box Bounds(const std::vector<LineGeom>& lines) {
  Box b{lines.front().left, lines.front().Top(), lines.front().right, lines.front().Bottom()};
  for (const LineGeom& g : lines) {
    b.left = std::min(b.left, g.left);
    b.top = std::min(b.top, g.Top());
    b.right = std::max(b.right, g.right);
    b.bottom = std::max(b.bottom, g.Bottom());
  }
  return b;
}

// Row boundaries from `separators` (y positions of rules and band edges inside the table), when
// they divide at least two and at least half of the gaps between the text rows of `lines`: a
// boundary at each dividing separator. A gap they leave open joins its two text rows when one of
// them leaves some of the `xs` columns empty (the lines of wrapped cells, set top, middle or
// bottom in their row) and it is no wider than the divided gaps; two full text rows stay two
// rows (a zebra table's unshaded header over its unshaded first row). Empty when the separators
// are no such evidence (a booktabs table's one header rule, a shaded header row alone).
std::vector<float> SeparatedRowBounds(const std::vector<LineGeom>& lines,
                                      const std::vector<float>& xs, std::vector<float> separators,
                                      float top, float bottom, float h) {
  const std::vector<std::vector<LineGeom>> rows = GroupRows(lines);
  if (rows.size() < 3 || separators.size() < 2) {
    return {};
  }
  std::sort(separators.begin(), separators.end());
  std::vector<std::optional<float>> dividing(rows.size() - 1);
  std::vector<float> divided_gaps;
  for (std::size_t i = 0; i + 1 < rows.size(); ++i) {
    const float gap_top = RowBottom(rows[i]) - kSeparatorSlack * h;
    const float gap_bottom = RowTop(rows[i + 1]) + kSeparatorSlack * h;
    const auto it = std::lower_bound(separators.begin(), separators.end(), gap_top);
    if (it != separators.end() && *it <= gap_bottom) {
      dividing[i] = *it;
      divided_gaps.push_back(RowTop(rows[i + 1]) - RowBottom(rows[i]));
    }
  }
  if (divided_gaps.size() < 2 || 2 * divided_gaps.size() < dividing.size()) {
    return {};
  }
  const float row_gap = *std::max_element(divided_gaps.begin(), divided_gaps.end());
  const std::size_t columns = xs.size() - 1;
  const auto full = [&](const std::vector<LineGeom>& row) {
    std::vector<bool> used(columns, false);
    for (const LineGeom& g : row) {
      used[static_cast<std::size_t>(IntervalOf(xs, g.CenterX()))] = true;
    }
    return std::all_of(used.begin(), used.end(), [](bool u) { return u; });
  };
  std::vector<float> ys = {top};
  for (std::size_t i = 0; i + 1 < rows.size(); ++i) {
    const float gap = RowTop(rows[i + 1]) - RowBottom(rows[i]);
    if (dividing[i]) {
      ys.push_back(*dividing[i]);
    } else if (gap > row_gap || (full(rows[i]) && full(rows[i + 1]))) {
      ys.push_back((RowBottom(rows[i]) + RowTop(rows[i + 1])) / 2);
    }
  }
  ys.push_back(bottom);
  return ys;
}

// Whether rows `a` and `b`, both holding cells, line up like rows of one table: cells of `b` set
// like cells of `a`, each cell of `a` counted once (one wide field does not line up with two
// cells, left edge with one and right edge with the other).
bool LinedUp(const std::vector<LineGeom>& a, const std::vector<LineGeom>& b, float h) {
  if (!HasCellGap(a, h) || !HasCellGap(b, h)) {
    return false;
  }
  std::vector<bool> used(a.size(), false);
  int aligned = 0;
  for (const LineGeom& g : b) {
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (!used[k] && Aligned(a[k], g, h)) {
        used[k] = true;
        ++aligned;
        break;
      }
    }
  }
  return aligned >= kMinAlignedCells;
}

// How many cells of the row `cells` lie under `line`: its lines overlapping it, those closer to
// each other than kPhraseBreak counted as one.
std::size_t CellsUnder(const std::vector<LineGeom>& cells, const LineGeom& line, float h) {
  std::size_t count = 0;
  bool counted = false;  // the current cell
  float last_right = -HUGE_VALF;
  for (const LineGeom& g : cells) {  // left to right
    counted = counted && g.left - last_right < kPhraseBreak * h;
    if (!counted && g.left < line.right && g.right > line.left) {
      ++count;
      counted = true;
    }
    last_right = std::max(last_right, g.right);
  }
  return count;
}

// Whether row `j` is a group heading inside a table ("Projected" between the actual and the
// projected years): one line over at most one cell of the run's last row of cells `cells` (it
// heads the rows under it, set in their label column), no further below the run than loosely set
// rows are, and closely followed by a row of cells that lines up with that last row.
bool GroupHeading(const std::vector<std::vector<LineGeom>>& rows, std::size_t j, std::size_t cells,
                  float h) {
  if (rows[j].size() != 1 || j + 1 >= rows.size()) {
    return false;
  }
  return CellsUnder(rows[cells], rows[j].front(), h) <= 1 &&
         RowTop(rows[j]) - RowBottom(rows[j - 1]) <= kMaxLooseRowGap * h &&
         RowTop(rows[j + 1]) - RowBottom(rows[j]) <= kMaxRowGap * h &&
         LinedUp(rows[cells], rows[j + 1], h);
}

// Whether `row` is prose under the row of cells `cells`: lines as wide as prose, each over
// several of those cells (a wrapped cell's next line stays over its own cell).
bool Prose(const std::vector<LineGeom>& row, const std::vector<LineGeom>& cells, float h) {
  return std::all_of(row.begin(), row.end(), [&](const LineGeom& line) {
    return line.right - line.left > kMinProseWidth * h && CellsUnder(cells, line, h) >= 2;
  });
}

// Whether row `j` may continue the run that holds row `j - 1`: close to it, or loosely set and
// lined up with the run's last row of cells `cells`, or a group heading over more of its rows,
// and not prose under those cells.
bool Continues(const std::vector<std::vector<LineGeom>>& rows, std::size_t j, std::size_t cells,
               float h) {
  if (Prose(rows[j], rows[cells], h)) {
    return false;
  }
  const float gap = RowTop(rows[j]) - RowBottom(rows[j - 1]);
  return gap <= kMaxRowGap * h ||
         (gap <= kMaxLooseRowGap * h && LinedUp(rows[cells], rows[j], h)) ||
         GroupHeading(rows, j, cells, h);
}

float MedianWidth(const std::vector<LineGeom>& lines) {
  std::vector<float> widths;
  widths.reserve(lines.size());
  for (const LineGeom& g : lines) {
    widths.push_back(g.right - g.left);
  }
  return UpperMedian(std::move(widths));
}

// `lines` without the prose beside them: the lines left of the first gutter, or right of the
// last, when their median is as wide as prose and either they start a line in fewer than
// kMinSharedRows of the rows of cells on the other side (a text column keeps its own leading and
// meets those rows by chance; a column of wrapped cells starts a line in each of them) or at
// least two of the rules and band edges `separators` run under the other side and stop short of
// this one (zebra stripes or rules of a table set beside a text column).
std::vector<LineGeom> WithoutProseBeside(std::vector<LineGeom> lines,
                                         const std::vector<Ruling>& separators, std::size_t allowed,
                                         float h) {
  const Box box = Bounds(lines);
  const std::vector<float> gutters = Gutters(lines, box.left, box.right, allowed, h);
  if (gutters.empty()) {
    return lines;
  }
  for (const bool left : {true, false}) {
    const float cut = left ? gutters.front() : gutters.back();
    const auto beside = [&](const LineGeom& g) { return (g.CenterX() < cut) == left; };
    std::vector<LineGeom> side;
    std::copy_if(lines.begin(), lines.end(), std::back_inserter(side), beside);
    if (side.empty() || side.size() == lines.size() || MedianWidth(side) <= kMinProseWidth * h) {
      continue;
    }
    const Box prose = Bounds(side);
    const float from = left ? cut : box.left;
    const float to = left ? box.right : cut;
    const auto stopping = std::count_if(separators.begin(), separators.end(), [&](const Ruling& r) {
      return r.y0 >= box.top && r.y0 <= box.bottom &&
             std::min(r.x1, to) - std::max(r.x0, from) >= kRowRuleWidth * (to - from) &&
             std::min(r.x1, prose.right) - std::max(r.x0, prose.left) <= 0;
    });
    int rows_of_cells = 0;
    int shared = 0;
    for (const std::vector<LineGeom>& row : GroupRows(lines)) {
      const auto n = static_cast<std::size_t>(std::count_if(row.begin(), row.end(), beside));
      if (n < row.size()) {
        ++rows_of_cells;
        shared += n > 0 ? 1 : 0;
      }
    }
    if (stopping >= 2 ||
        static_cast<float>(shared) < kMinSharedRows * static_cast<float>(rows_of_cells)) {
      std::erase_if(lines, beside);
    }
  }
  return lines;
}

// Horizontal rules as wide as the table's box, above, inside or below it (booktabs).
int BoundingRules(const std::vector<Ruling>& horizontal, const Box& box, float h) {
  int count = 0;
  for (const Ruling& r : horizontal) {
    if (r.x0 <= box.left + h && r.x1 >= box.right - h && r.y0 >= box.top - 2 * h &&
        r.y0 <= box.bottom + 2 * h) {
      ++count;
    }
  }
  return count;
}

// The column boundaries, edges included: the whitespace gutters and the vertical rules through
// the whole table, clustered.
std::vector<float> ColumnBounds(const std::vector<LineGeom>& lines,
                                const std::vector<Ruling>& vertical, const Box& box,
                                std::size_t allowed, float touch, float h) {
  std::vector<float> xs = Gutters(lines, box.left, box.right, allowed, h);
  for (const Ruling& r : vertical) {
    if (r.x0 > box.left + touch && r.x0 < box.right - touch && r.y0 <= box.top + h &&
        r.y1 >= box.bottom - h) {
      xs.push_back(r.x0);  // a rule through the whole table separates columns too
    }
  }
  xs = Cluster(std::move(xs), h);
  xs.insert(xs.begin(), box.left);
  xs.push_back(box.right);
  return xs;
}

// Whether enough of the grid holds text: rows with two or more cells, and cells filled.
bool FilledEnough(const Table& table) {
  int filled = 0;
  std::vector<int> cells_in_row(static_cast<std::size_t>(table.row_count), 0);
  for (const TableCell& cell : table.cells) {
    if (!cell.rows.empty()) {
      filled += cell.row_span * cell.col_span;
      ++cells_in_row[static_cast<std::size_t>(cell.row)];
    }
  }
  const auto multi =
      std::count_if(cells_in_row.begin(), cells_in_row.end(), [](int n) { return n >= 2; });
  return static_cast<float>(multi) >= kMinMultiCellRows * static_cast<float>(table.row_count) &&
         static_cast<float>(filled) >=
             kMinFilledCells * static_cast<float>(table.row_count * table.col_count);
}

// A ruling between the first and second rows, and none between later rows: a header rule.
bool RuleUnderFirstRow(const std::vector<Ruling>& row_rules, const Grid& grid, const Box& box,
                       int row_count, float touch, float h) {
  if (row_count < 2)
    return false;
  const float y = grid.ys[1];
  int inner_rules = 0;
  bool under_first = false;
  for (const Ruling& r : row_rules) {
    if (r.y0 > box.top + touch && r.y0 < box.bottom - touch &&
        r.x1 - r.x0 >= 0.5F * (box.right - box.left)) {
      ++inner_rules;
      under_first = under_first || std::abs(r.y0 - y) <= std::max(touch, h);
    }
  }
  return under_first && inner_rules <= 2;
}

}  // namespace

std::optional<Table> UnruledTable(const std::vector<std::vector<LineGeom>>& rows,
                                  std::span<const std::string> texts,
                                  const std::vector<Ruling>& horizontal,
                                  const std::vector<Ruling>& vertical,
                                  const std::vector<Ruling>& band_edges, float h) {
  std::vector<LineGeom> lines;
  for (const std::vector<LineGeom>& row : rows) {
    lines.insert(lines.end(), row.begin(), row.end());
  }
  // What divides rows: horizontal rules and the edges of shaded bands.
  std::vector<Ruling> row_rules = horizontal;
  row_rules.insert(row_rules.end(), band_edges.begin(), band_edges.end());
  lines = WithoutProseBeside(
      std::move(lines), row_rules,
      static_cast<std::size_t>(kMaxCrossingRows * static_cast<float>(rows.size())), h);
  const std::size_t row_count = GroupRows(lines).size();
  const Box box = Bounds(lines);
  const float touch = kTouch * h + 2.0F;
  // Rules as wide as the table bound it (booktabs): with them, two columns are a table too.
  const int bounding_rules = BoundingRules(horizontal, box, h);
  const auto allowed = static_cast<std::size_t>(kMaxCrossingRows * static_cast<float>(row_count));
  Grid grid;
  grid.xs = ColumnBounds(lines, vertical, box, allowed, touch, h);
  const int columns = static_cast<int>(grid.xs.size()) - 1;
  if (columns < (bounding_rules >= 2 ? 2 : kMinUnruledColumns)) {
    return std::nullopt;
  }
  if (MedianWidth(lines) > kMaxMedianCellWidth * h) {
    return std::nullopt;
  }
  std::vector<float> separators;
  for (const Ruling& r : row_rules) {
    if (r.y0 > box.top + touch && r.y0 < box.bottom - touch &&
        std::min(r.x1, box.right) - std::max(r.x0, box.left) >=
            kRowRuleWidth * (box.right - box.left)) {
      separators.push_back(r.y0);
    }
  }
  grid.ys = SeparatedRowBounds(lines, grid.xs, std::move(separators), box.top, box.bottom, h);
  if (grid.ys.empty()) {
    grid.ys = TextRowBounds(lines, grid.xs, box.top, box.bottom, h);
  }
  if (static_cast<int>(grid.ys.size()) - 1 < kMinUnruledRows) {
    return std::nullopt;
  }
  std::optional<Table> built = BuildTable(grid, lines, {}, {}, h);
  if (!built || !FilledEnough(*built)) {
    return std::nullopt;
  }
  built->header_rows = HeaderRows(
      *built, texts, RuleUnderFirstRow(row_rules, grid, box, built->row_count, touch, h));
  return built;
}

std::vector<std::pair<std::size_t, std::size_t>> UnruledRuns(
    const std::vector<std::vector<LineGeom>>& rows, float h) {
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  std::size_t i = 0;
  while (i < rows.size()) {
    if (!HasCellGap(rows[i], h)) {
      ++i;
      continue;
    }
    std::size_t end = i + 1;  // one past the run's last multi-cell row
    std::size_t multi = 1;
    for (std::size_t j = i + 1;
         j < rows.size() && Continues(rows, j, end - 1, h) && j - end < kMaxSingleRows; ++j) {
      if (HasCellGap(rows[j], h)) {
        end = j + 1;
        ++multi;
      }
    }
    // The last cells' wrapped lines: close, under a line of the row above, and not prose (a
    // table's notes set tight under it).
    const float wrap_gap = WrapGap(std::span(rows).subspan(i, end - i), h);
    const std::size_t last_cells = end - 1;
    while (end < rows.size() && !HasCellGap(rows[end], h) &&
           !Prose(rows[end], rows[last_cells], h) &&
           RowTop(rows[end]) - RowBottom(rows[end - 1]) < wrap_gap &&
           std::any_of(rows[end - 1].begin(), rows[end - 1].end(),
                       [&](const LineGeom& g) { return Aligned(g, rows[end].front(), h); })) {
      ++end;
    }
    if (multi >= 2) {
      runs.emplace_back(i, end);
    }
    i = end;
  }
  return runs;
}

}  // namespace ocr::layout::internal
