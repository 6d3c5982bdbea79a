// A table's cells from its grid: where each line lies in the grid (Place), which borders between
// grid positions are open (MergeOpenBorders), the rectangles of the joined positions (Cells), and
// the table they make (BuildTable).
#include "layout/internal/table_cells.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

#include "layout/internal/disjoint_sets.h"

namespace ocr::layout::internal {
namespace {

// A border between two grid cells is ruled when rulings cover this fraction of it.
constexpr float kRuledFraction = 0.3F;

// Whether rulings of `rulings` (all of one direction) run along `position` over at least
// kRuledFraction of [from, to], together: a rule can be broken where text touches it or where a
// scan faded it, while between the two halves of a spanning cell there is no rule at all (only
// the few pixels by which a neighbouring cell's rule overshoots).
bool Ruled(const std::vector<Ruling>& rulings, bool horizontal, float position, float from,
           float to, float touch) {
  float covered = 0;
  for (const Ruling& r : rulings) {
    const float across = horizontal ? r.y0 : r.x0;
    const float begin = horizontal ? r.x0 : r.y0;
    const float end = horizontal ? r.x1 : r.y1;
    if (std::abs(across - position) <= touch) {
      covered += std::max(0.0F, std::min(end, to) - std::max(begin, from));
    }
  }
  return covered >= kRuledFraction * (to - from);
}

// Where a line lies in a grid: the row of its centre and the columns it covers (beyond a small
// overhang, on a text axis; the column of its centre on a ruled one).
struct Placed {
  const LineGeom* line;
  int row;
  int col_first;
  int col_last;
};

std::vector<Placed> Place(const Grid& grid, const std::vector<LineGeom>& lines, float h) {
  std::vector<Placed> placed;
  placed.reserve(lines.size());
  for (const LineGeom& g : lines) {
    const int row = IntervalOf(grid.ys, g.center_y);
    int first = IntervalOf(grid.xs, g.CenterX());
    int last = first;
    if (!grid.ruled_columns) {
      first = IntervalOf(grid.xs, std::min(g.left + 0.3F * h, g.CenterX()));
      last = IntervalOf(grid.xs, std::max(g.right - 0.3F * h, g.CenterX()));
    }
    placed.push_back(Placed{&g, row, first, last});
  }
  return placed;
}

// Grid positions, row-major.
class Positions {
 public:
  explicit Positions(int cols) : cols_(static_cast<std::size_t>(cols)) {}

  std::size_t operator()(int r, int c) const {
    return static_cast<std::size_t>(r) * cols_ + static_cast<std::size_t>(c);
  }

 private:
  std::size_t cols_;
};

// Joins neighbouring grid positions that are one cell: across a ruled axis where no ruling
// separates them, across a text axis where a line crosses their boundary.
void MergeOpenBorders(const Grid& grid, const std::vector<Placed>& placed,
                      const std::vector<Ruling>& horizontal, const std::vector<Ruling>& vertical,
                      float touch, DisjointSets& sets) {
  const int rows = static_cast<int>(grid.ys.size()) - 1;
  const int cols = static_cast<int>(grid.xs.size()) - 1;
  const Positions at(cols);
  for (int r = 0; r < rows; ++r) {
    const auto ri = static_cast<std::size_t>(r);
    for (int c = 0; c + 1 < cols; ++c) {
      const auto boundary = static_cast<std::size_t>(c) + 1;
      const float x = grid.xs[boundary];
      const bool from_text =
          std::find(grid.text_xs.begin(), grid.text_xs.end(), boundary) != grid.text_xs.end();
      const bool open = grid.ruled_columns && !from_text
                            ? !Ruled(vertical, false, x, grid.ys[ri], grid.ys[ri + 1], touch)
                            : std::any_of(placed.begin(), placed.end(), [&](const Placed& p) {
                                return p.row == r && p.col_first <= c && p.col_last > c;
                              });
      if (open) {
        sets.Unite(at(r, c), at(r, c + 1));
      }
    }
  }
  if (!grid.ruled_rows) {
    return;
  }
  for (int r = 0; r + 1 < rows; ++r) {
    const auto boundary = static_cast<std::size_t>(r) + 1;
    if (std::find(grid.text_ys.begin(), grid.text_ys.end(), boundary) != grid.text_ys.end()) {
      continue;  // text rows inside a ruled band: separate rows, never one cell
    }
    const float y = grid.ys[boundary];
    for (int c = 0; c < cols; ++c) {
      const auto ci = static_cast<std::size_t>(c);
      if (!Ruled(horizontal, true, y, grid.xs[ci], grid.xs[ci + 1], touch)) {
        sets.Unite(at(r, c), at(r + 1, c));
      }
    }
  }
}

// The cells of a rows x cols grid whose positions `sets` groups: each group becomes the rectangle
// that bounds it, clipped where an earlier cell already holds a position of that rectangle (a
// group that was not a rectangle); the positions clipped off become cells of their own. Every
// position is in exactly one cell. `owner` receives each position's cell index.
std::vector<TableCell> Cells(int rows, int cols, DisjointSets& sets, std::vector<int>& owner) {
  const Positions at(cols);

  struct Extent {
    int last_r = -1;
    int last_c = -1;
  };

  std::vector<Extent> extent(owner.size());
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      Extent& e = extent[sets.Find(at(r, c))];
      e.last_r = std::max(e.last_r, r);
      e.last_c = std::max(e.last_c, c);
    }
  }
  auto row_free = [&](int r, int c, int last_c) {
    for (int cc = c; cc <= last_c; ++cc) {
      if (owner[at(r, cc)] >= 0) {
        return false;
      }
    }
    return true;
  };
  std::vector<TableCell> cells;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      if (owner[at(r, c)] >= 0) {
        continue;
      }
      const Extent& e = extent[sets.Find(at(r, c))];
      // The widest run of free positions along the first row, then as many rows below as are
      // free across it.
      int last_c = c;
      while (last_c < e.last_c && owner[at(r, last_c + 1)] < 0) {
        ++last_c;
      }
      int last_r = r;
      while (last_r < e.last_r && row_free(last_r + 1, c, last_c)) {
        ++last_r;
      }
      const int id = static_cast<int>(cells.size());
      for (int rr = r; rr <= last_r; ++rr) {
        for (int cc = c; cc <= last_c; ++cc) {
          owner[at(rr, cc)] = id;
        }
      }
      cells.push_back(TableCell{r, c, last_r - r + 1, last_c - c + 1, {}});
    }
  }
  return cells;
}

}  // namespace

std::optional<Table> BuildTable(const Grid& grid, const std::vector<LineGeom>& lines,
                                const std::vector<Ruling>& horizontal,
                                const std::vector<Ruling>& vertical, float h) {
  const int rows = static_cast<int>(grid.ys.size()) - 1;
  const int cols = static_cast<int>(grid.xs.size()) - 1;
  const std::size_t positions = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  if (rows < 1 || cols < 1 || positions > kMaxTableCells) {
    return std::nullopt;
  }
  const std::vector<Placed> placed = Place(grid, lines, h);
  DisjointSets sets(positions);
  MergeOpenBorders(grid, placed, horizontal, vertical, kTouch * h + 2.0F, sets);
  Table table;
  table.row_count = rows;
  table.col_count = cols;
  std::vector<int> owner(positions, -1);
  table.cells = Cells(rows, cols, sets, owner);
  const Positions at(cols);
  std::vector<std::vector<LineGeom>> cell_lines(table.cells.size());
  for (const Placed& p : placed) {
    const int id = owner[at(p.row, p.col_first)];
    cell_lines[static_cast<std::size_t>(id)].push_back(*p.line);
    table.lines.push_back(p.line->index);
  }
  for (std::size_t i = 0; i < table.cells.size(); ++i) {
    for (const std::vector<LineGeom>& row : GroupRows(std::move(cell_lines[i]))) {
      std::vector<std::size_t>& indices = table.cells[i].rows.emplace_back();
      for (const LineGeom& g : row) {
        indices.push_back(g.index);
      }
    }
  }
  table.left = grid.xs.front();
  table.right = grid.xs.back();
  table.top = grid.ys.front();
  table.bottom = grid.ys.back();
  return table;
}

}  // namespace ocr::layout::internal
