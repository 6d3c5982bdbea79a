// Unruled tables: candidate runs of rows with cell gaps (UnruledRuns), and the grid, cells and
// checks that make a run a table (UnruledTable).
//
// Thresholds are in units of the page's median line height (h), as in layout.cpp.
#include "document/internal/unruled_tables.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "document/internal/table_cells.h"
#include "document/internal/table_grid.h"
#include "document/internal/table_header.h"

namespace ocr::document::internal {
namespace {

// Boxes of one row at least this far apart are separate cells. The detector joins the words of
// one phrase into one box (word gaps are about 0.3-0.5 h), so a wider gap is a column gap.
constexpr float kCellGap = 0.8F;

// Rows of one unruled table are at most this far apart (the padding of a loose table is about
// 1 h); a larger gap ends the table.
constexpr float kMaxRowGap = 1.6F;

// Rows with a single box may sit between rows of cells (the second and third lines of a wrapped
// cell, a heading row inside the table); more of them in a row than this end the table.
constexpr std::size_t kMaxSingleRows = 3;

// Fraction of a gutter's rows that may cross it (a heading over two columns, a wide title cell):
// a spanning cell, not a reason to drop the column.
constexpr float kMaxCrossingRows = 0.2F;

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

float TopOf(const std::vector<LineGeom>& row) {
  float top = row.front().Top();
  for (const LineGeom& g : row) {
    top = std::min(top, g.Top());
  }
  return top;
}

float BottomOf(const std::vector<LineGeom>& row) {
  float bottom = row.front().Bottom();
  for (const LineGeom& g : row) {
    bottom = std::max(bottom, g.Bottom());
  }
  return bottom;
}

}  // namespace

std::optional<Table> UnruledTable(const std::vector<std::vector<LineGeom>>& rows,
                                  std::span<const std::string> texts,
                                  const std::vector<Ruling>& horizontal,
                                  const std::vector<Ruling>& vertical, float h) {
  std::vector<LineGeom> lines;
  for (const std::vector<LineGeom>& row : rows) {
    lines.insert(lines.end(), row.begin(), row.end());
  }
  const Box box = Bounds(lines);
  const float touch = kTouch * h + 2.0F;
  // Rules as wide as the table bound it (booktabs): with them, two columns are a table too.
  int bounding_rules = 0;
  for (const Ruling& r : horizontal) {
    if (r.x0 <= box.left + h && r.x1 >= box.right - h && r.y0 >= box.top - 2 * h &&
        r.y0 <= box.bottom + 2 * h) {
      ++bounding_rules;
    }
  }
  const auto allowed = static_cast<std::size_t>(kMaxCrossingRows * static_cast<float>(rows.size()));
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
  const int columns = static_cast<int>(xs.size()) - 1;
  if (columns < (bounding_rules >= 2 ? 2 : kMinUnruledColumns)) {
    return std::nullopt;
  }
  std::vector<float> widths;
  widths.reserve(lines.size());
  for (const LineGeom& g : lines) {
    widths.push_back(g.right - g.left);
  }
  const auto middle = widths.begin() + static_cast<std::ptrdiff_t>(widths.size() / 2);
  std::nth_element(widths.begin(), middle, widths.end());
  if (*middle > kMaxMedianCellWidth * h) {
    return std::nullopt;
  }
  Grid grid;
  grid.xs = std::move(xs);
  grid.ys = TextRowBounds(lines, grid.xs, box.top, box.bottom, h);
  if (static_cast<int>(grid.ys.size()) - 1 < kMinUnruledRows) {
    return std::nullopt;
  }
  std::optional<Table> built = BuildTable(grid, lines, {}, {}, h);
  if (!built) {
    return std::nullopt;
  }
  Table& table = *built;
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
  if (static_cast<float>(multi) < kMinMultiCellRows * static_cast<float>(table.row_count) ||
      static_cast<float>(filled) <
          kMinFilledCells * static_cast<float>(table.row_count * table.col_count)) {
    return std::nullopt;
  }
  // A ruling between the first and second rows, and none between later rows: a header rule.
  bool rule_under_first = false;
  if (table.row_count >= 2) {
    const float y = grid.ys[1];
    int inner_rules = 0;
    for (const Ruling& r : horizontal) {
      if (r.y0 > box.top + touch && r.y0 < box.bottom - touch &&
          r.x1 - r.x0 >= 0.5F * (box.right - box.left)) {
        ++inner_rules;
        rule_under_first = rule_under_first || std::abs(r.y0 - y) <= std::max(touch, h);
      }
    }
    rule_under_first = rule_under_first && inner_rules <= 2;
  }
  table.header_rows = HeaderRows(table, texts, rule_under_first);
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
         j < rows.size() && TopOf(rows[j]) - BottomOf(rows[j - 1]) <= kMaxRowGap * h &&
         j - end < kMaxSingleRows;
         ++j) {
      if (HasCellGap(rows[j], h)) {
        end = j + 1;
        ++multi;
      }
    }
    while (end < rows.size() && !HasCellGap(rows[end], h) &&
           TopOf(rows[end]) - BottomOf(rows[end - 1]) < kWrapGap * h &&
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

}  // namespace ocr::document::internal
