// Table finding. Two sources of evidence, used together:
//  - Rulings (rulings.h). Horizontal and vertical rulings that cross or touch form a connected
//    grid; a grid with two rows that each hold text in two cells is a ruled table (a frame, a
//    form's boxes or a stack of buttons is not). Where a border between two grid cells is
//    missing, the cells are one spanning cell.
//  - Alignment. Consecutive rows of lines that each hold several separate boxes, with vertical
//    channels of whitespace running through all of them (gutters), are an unruled table; rows are
//    the text rows, with a row that only continues wrapped cells merged into the one above.
// An axis that a ruled table does not rule (a frame with no inner verticals, rows without inner
// rules) takes its boundaries from the text in the same way.
//
// Thresholds are in units of the page's median line height (h), as in layout.cpp.
#include "document/tables.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ocr::document {
namespace {

// Rulings within this distance of each other (or of a crossing) touch; positions this close are
// one boundary. Covers antialiasing, a doubled border and detector jitter, far below a row.
constexpr float kTouch = 0.35F;

// A border between two grid cells is ruled when rulings cover this fraction of it.
constexpr float kRuledFraction = 0.3F;

// Boxes of one row at least this far apart are separate cells. The detector joins the words of
// one phrase into one box (word gaps are about 0.3-0.5 h), so a wider gap is a column gap.
constexpr float kCellGap = 0.8F;

// A gutter (a vertical channel of whitespace through a table's rows) is at least this wide.
constexpr float kMinGutter = 0.6F;

// Rows of one unruled table are at most this far apart (the padding of a loose table is about
// 1 h); a larger gap ends the table.
constexpr float kMaxRowGap = 1.6F;

// Rows with a single box may sit between rows of cells (the second and third lines of a wrapped
// cell, a heading row inside the table); more of them in a row than this end the table.
constexpr std::size_t kMaxSingleRows = 3;

// A text row closer than this to the row above, holding lines in fewer than half of the columns,
// each set like a line above it in its column (left, centre or right edges aligned), continues
// wrapped cells instead of starting a row. Lines of one cell are set with their leading (0 to
// 0.3 h apart once the detector has padded the boxes); rows of a table with padding on both sides.
constexpr float kWrapGap = 0.4F;

// Lines of one cell set alike have their left, centre or right edges this close (detector
// jitter).
constexpr float kWrapAlign = 0.5F;

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

// A page with more rulings than this is a pattern (graph paper, hatching), not tables: they are
// not looked at (which also bounds the pairwise search for crossings).
constexpr std::size_t kMaxRulings = 2000;

// A cell's text is numeric when at least this fraction of its non-space characters are digits
// and the rest are signs, separators, units of money or percent.
constexpr float kNumericDigits = 0.5F;

struct Box {
  float left = 0;
  float top = 0;
  float right = 0;
  float bottom = 0;
};

bool IsNumeric(std::string_view text) {
  std::size_t digits = 0;
  std::size_t other = 0;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if (std::string_view("+-.,%$()/: ").find(c) != std::string_view::npos) {
      continue;
    } else {
      ++other;
    }
  }
  // A lone dash (or several) is how tables print an empty numeric cell.
  if (digits == 0) {
    return other == 0 && text.find('-') != std::string_view::npos;
  }
  return static_cast<float>(digits) >= kNumericDigits * static_cast<float>(digits + other);
}

// Sorted positions with those closer than `tolerance` merged into their mean.
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

// Index of the interval of `bounds` (ascending boundaries, outer edges included) holding `v`,
// clamped to the first and last interval (0 when there is one interval or none).
int IntervalOf(const std::vector<float>& bounds, float v) {
  if (bounds.size() < 3) {
    return 0;
  }
  const auto it = std::upper_bound(bounds.begin(), bounds.end(), v);
  const auto i = static_cast<int>(it - bounds.begin()) - 1;
  return std::clamp(i, 0, static_cast<int>(bounds.size()) - 2);
}

class DisjointSets {
 public:
  explicit DisjointSets(std::size_t n) : parent_(n) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }

  std::size_t Find(std::size_t i) {
    while (parent_[i] != i) {
      parent_[i] = parent_[parent_[i]];
      i = parent_[i];
    }
    return i;
  }

  void Unite(std::size_t a, std::size_t b) { parent_[Find(a)] = Find(b); }

 private:
  std::vector<std::size_t> parent_;
};

// --- Rulings into grids.

struct RuledRegion {
  Box box;
  std::vector<Ruling> horizontal;
  std::vector<Ruling> vertical;
};

// Connected sets of crossing or touching rulings with at least two of each direction.
std::vector<RuledRegion> RuledRegions(std::span<const Ruling> rulings, float h) {
  const float touch = kTouch * h + 2.0F;
  DisjointSets sets(rulings.size());
  for (std::size_t i = 0; i < rulings.size(); ++i) {
    for (std::size_t j = i + 1; j < rulings.size(); ++j) {
      const Ruling& a = rulings[i];
      const Ruling& b = rulings[j];
      if (a.Horizontal() == b.Horizontal()) {
        continue;
      }
      const Ruling& hr = a.Horizontal() ? a : b;
      const Ruling& vr = a.Horizontal() ? b : a;
      if (vr.x0 >= hr.x0 - touch && vr.x0 <= hr.x1 + touch && hr.y0 >= vr.y0 - touch &&
          hr.y0 <= vr.y1 + touch) {
        sets.Unite(i, j);
      }
    }
  }
  std::vector<std::optional<RuledRegion>> by_root(rulings.size());
  for (std::size_t i = 0; i < rulings.size(); ++i) {
    std::optional<RuledRegion>& region = by_root[sets.Find(i)];
    const Ruling& r = rulings[i];
    if (!region) {
      region = RuledRegion{Box{r.x0, r.y0, r.x1, r.y1}, {}, {}};
    }
    region->box.left = std::min(region->box.left, r.x0);
    region->box.top = std::min(region->box.top, r.y0);
    region->box.right = std::max(region->box.right, r.x1);
    region->box.bottom = std::max(region->box.bottom, r.y1);
    (r.Horizontal() ? region->horizontal : region->vertical).push_back(r);
  }
  std::vector<RuledRegion> out;
  for (std::optional<RuledRegion>& region : by_root) {
    if (region && region->horizontal.size() >= 2 && region->vertical.size() >= 2) {
      out.push_back(std::move(*region));
    }
  }
  return out;
}

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

// --- Text into grids.

// Boundaries (centres of gutters) between the columns of `lines` within [left, right]: vertical
// whitespace channels at least kMinGutter wide that at most `allowed_crossers` lines cross.
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

// The grid of one table region before validation.
struct Grid {
  std::vector<float> xs;  // column boundaries, outer edges included
  std::vector<float> ys;  // row boundaries, outer edges included
  bool ruled_columns = false;
  bool ruled_rows = false;
};

// Whether two lines of one column are set alike: left, centre or right edges within kWrapAlign.
bool Aligned(const LineGeom& a, const LineGeom& b, float h) {
  return std::abs(a.left - b.left) <= kWrapAlign * h ||
         std::abs(a.CenterX() - b.CenterX()) <= kWrapAlign * h ||
         std::abs(a.right - b.right) <= kWrapAlign * h;
}

// Text rows of `lines`, with rows that only continue wrapped cells (given column boundaries `xs`)
// merged into the row above; returns the row boundaries, outer edges included.
std::vector<float> TextRowBounds(const std::vector<LineGeom>& lines, const std::vector<float>& xs,
                                 float top, float bottom, float h) {
  std::vector<std::vector<LineGeom>> rows = GroupRows(lines);
  const std::size_t columns = xs.size() - 1;
  std::vector<std::vector<LineGeom>> merged;
  for (std::vector<LineGeom>& row : rows) {
    if (!merged.empty()) {
      const std::vector<LineGeom>& above = merged.back();
      float above_bottom = above.front().Bottom();
      for (const LineGeom& g : above) {
        above_bottom = std::max(above_bottom, g.Bottom());
      }
      float row_top = row.front().Top();
      for (const LineGeom& g : row) {
        row_top = std::min(row_top, g.Top());
      }
      bool continues = row_top - above_bottom < kWrapGap * h && 2 * row.size() < columns;
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
  std::vector<float> ys = {top};
  for (std::size_t i = 0; i + 1 < merged.size(); ++i) {
    float bottom_i = -1e30F;
    for (const LineGeom& g : merged[i]) {
      bottom_i = std::max(bottom_i, g.Bottom());
    }
    float top_next = 1e30F;
    for (const LineGeom& g : merged[i + 1]) {
      top_next = std::min(top_next, g.Top());
    }
    ys.push_back((bottom_i + top_next) / 2);
  }
  ys.push_back(bottom);
  return ys;
}

// --- Cells.

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
      const float x = grid.xs[static_cast<std::size_t>(c) + 1];
      const bool open = grid.ruled_columns
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
    const float y = grid.ys[static_cast<std::size_t>(r) + 1];
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

// Builds the table of `grid` over `lines` (all inside it), or nothing when the grid has more
// positions than a page's table can (a hatched pattern, an adversarial page).
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

std::string CellText(const TableCell& cell, std::span<const std::string> texts) {
  std::string out;
  for (const std::vector<std::size_t>& row : cell.rows) {
    for (std::size_t index : row) {
      if (!out.empty()) {
        out += ' ';
      }
      out += texts[index];
    }
  }
  return out;
}

// Whether every cell starting in row `row` holds text that is not a number.
bool RowIsText(const Table& table, std::span<const std::string> texts, int row) {
  int cells = 0;
  for (const TableCell& cell : table.cells) {
    if (cell.row != row) {
      continue;
    }
    const std::string text = CellText(cell, texts);
    if (text.empty() || IsNumeric(text)) {
      return false;
    }
    ++cells;
  }
  return cells > 0;
}

// Leading header rows, when evident: the first row is all text (no numbers, no empty cells)
// while some column below it is mostly numbers, or it holds a cell spanning some but not all
// columns (a group heading), or a ruling under it is the only one inside an otherwise unruled
// table. A first-row cell spanning rows carries the header down with it, and so does a row of
// column headings under a group heading.
int HeaderRows(const Table& table, std::span<const std::string> texts, bool rule_under_first) {
  if (table.row_count < 2) {
    return 0;
  }
  bool all_text = true;
  bool group_heading = false;
  int span_down = 1;
  int first_row_cells = 0;
  for (const TableCell& cell : table.cells) {
    if (cell.row != 0) {
      continue;
    }
    ++first_row_cells;
    const std::string text = CellText(cell, texts);
    if (text.empty() || IsNumeric(text)) {
      all_text = false;
    }
    if (cell.col_span > 1 && cell.col_span < table.col_count) {
      group_heading = true;
    }
    span_down = std::max(span_down, cell.row_span);
  }
  if (first_row_cells < 2) {
    return 0;  // one cell over the whole width is a title, not column headings
  }
  bool numeric_column = false;
  for (int c = 0; c < table.col_count && !numeric_column; ++c) {
    int numbers = 0;
    int filled = 0;
    for (const TableCell& cell : table.cells) {
      if (cell.col != c || cell.row < span_down) {
        continue;
      }
      const std::string text = CellText(cell, texts);
      if (!text.empty()) {
        ++filled;
        numbers += IsNumeric(text) ? 1 : 0;
      }
    }
    numeric_column = filled >= 2 && 2 * numbers >= filled;
  }
  if (!all_text || !(numeric_column || group_heading || rule_under_first)) {
    return 0;
  }
  // Under a group heading, a row of text (the headings of the grouped columns) is header too.
  int header = span_down;
  if (group_heading && header < table.row_count - 1 && RowIsText(table, texts, header)) {
    ++header;
  }
  return std::min(header, table.row_count - 1);
}

// --- Regions.

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

bool Inside(const LineGeom& g, const Box& box, float slack) {
  return g.CenterX() >= box.left - slack && g.CenterX() <= box.right + slack &&
         g.center_y >= box.top - slack && g.center_y <= box.bottom + slack;
}

// `bounds` (ascending) with `low` and `high` added as its outer edges unless a boundary is
// already there.
std::vector<float> WithEdges(std::vector<float> bounds, float low, float high, float touch) {
  if (bounds.empty() || bounds.front() > low + touch) {
    bounds.insert(bounds.begin(), low);
  }
  if (bounds.back() < high - touch) {
    bounds.push_back(high);
  }
  return bounds;
}

// A ruled region's table, or nothing when its grid or its text is too thin to be one.
std::optional<Table> RuledTable(const RuledRegion& region, const std::vector<LineGeom>& lines,
                                std::span<const std::string> texts, float h) {
  const float touch = kTouch * h + 2.0F;
  Grid grid;
  std::vector<float> xs;
  for (const Ruling& r : region.vertical) {
    xs.push_back(r.x0);
  }
  std::vector<float> ys;
  for (const Ruling& r : region.horizontal) {
    ys.push_back(r.y0);
  }
  grid.xs = WithEdges(Cluster(std::move(xs), touch), region.box.left, region.box.right, touch);
  grid.ys = WithEdges(Cluster(std::move(ys), touch), region.box.top, region.box.bottom, touch);
  if (lines.empty()) {
    return std::nullopt;
  }
  grid.ruled_columns = grid.xs.size() >= 3;
  grid.ruled_rows = grid.ys.size() >= 3;
  if (!grid.ruled_columns) {
    std::vector<float> gutters = Gutters(lines, grid.xs.front(), grid.xs.back(), 0, h);
    gutters.insert(gutters.begin(), grid.xs.front());
    gutters.push_back(grid.xs.back());
    grid.xs = std::move(gutters);
  }
  if (!grid.ruled_rows) {
    grid.ys = TextRowBounds(lines, grid.xs, grid.ys.front(), grid.ys.back(), h);
  }
  if (grid.xs.size() < 3 || grid.ys.size() < 3) {
    return std::nullopt;
  }
  std::optional<Table> built = BuildTable(grid, lines, region.horizontal, region.vertical, h);
  if (!built) {
    return std::nullopt;
  }
  Table& table = *built;
  std::vector<int> cells_in_row(static_cast<std::size_t>(table.row_count), 0);
  for (const TableCell& cell : table.cells) {
    cells_in_row[static_cast<std::size_t>(cell.row)] += cell.rows.empty() ? 0 : 1;
  }
  const auto rows_of_cells =
      std::count_if(cells_in_row.begin(), cells_in_row.end(), [](int n) { return n >= 2; });
  if (rows_of_cells < 2) {
    return std::nullopt;  // a frame around a paragraph, a form's boxes, buttons, a diagram
  }
  table.header_rows = HeaderRows(table, texts, false);
  return built;
}

// Whether two boxes of a row (sorted left to right) are apart like cells.
bool HasCellGap(const std::vector<LineGeom>& row, float h) {
  for (std::size_t i = 0; i + 1 < row.size(); ++i) {
    if (row[i + 1].left - row[i].right >= kCellGap * h) {
      return true;
    }
  }
  return false;
}

// An unruled table over the rows `rows` (consecutive text rows), or nothing when they do not
// form a grid. `horizontal` are the page's horizontal rulings (a rule under the header row, the
// top and bottom rules of a booktabs table).
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

// Candidate unruled tables, as [begin, end) ranges of `rows` (text rows, top to bottom): runs of
// rows with cell gaps (at least two), no more than kMaxRowGap apart, with up to kMaxSingleRows
// single-box rows between two of them, and the wrapped lines of a last cell below the last.
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

}  // namespace

std::vector<Table> FindTables(std::span<const LineGeom> lines, std::span<const std::string> texts,
                              std::span<const Ruling> rulings, float h) {
  std::vector<Table> tables;
  if (lines.empty() || !(h >= 1.0F)) {
    return tables;
  }
  if (rulings.size() > kMaxRulings) {
    rulings = {};
  }
  std::vector<Ruling> horizontal;
  std::vector<Ruling> vertical;
  for (const Ruling& r : rulings) {
    (r.Horizontal() ? horizontal : vertical).push_back(r);
  }
  std::vector<bool> taken(texts.size(), false);
  for (const RuledRegion& region : RuledRegions(rulings, h)) {
    std::vector<LineGeom> inside;
    for (const LineGeom& g : lines) {
      if (!taken[g.index] && Inside(g, region.box, 0)) {
        inside.push_back(g);
      }
    }
    std::optional<Table> table = RuledTable(region, inside, texts, h);
    if (table) {
      for (std::size_t index : table->lines) {
        taken[index] = true;
      }
      tables.push_back(std::move(*table));
    }
  }
  std::vector<LineGeom> free;
  for (const LineGeom& g : lines) {
    if (!taken[g.index]) {
      free.push_back(g);
    }
  }
  const std::vector<std::vector<LineGeom>> rows = GroupRows(std::move(free));
  for (const auto& [begin, end] : UnruledRuns(rows, h)) {
    const std::vector<std::vector<LineGeom>> run(rows.begin() + static_cast<std::ptrdiff_t>(begin),
                                                 rows.begin() + static_cast<std::ptrdiff_t>(end));
    std::optional<Table> table = UnruledTable(run, texts, horizontal, vertical, h);
    if (table) {
      tables.push_back(std::move(*table));
    }
  }
  return tables;
}

}  // namespace ocr::document
