// Ruled tables: rulings that cross or touch into connected regions (RuledRegions), and a
// region's grid and table (RuledTable), with text boundaries on an axis the rulings leave open.
//
// Thresholds are in units of the page's median line height (h), as in layout.cpp.
#include "layout/internal/ruled_tables.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "layout/internal/disjoint_sets.h"
#include "layout/internal/table_cells.h"
#include "layout/internal/table_header.h"

namespace ocr::layout::internal {
namespace {

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

// Adds the boundaries `added` (found from the text) to the sorted `bounds` of a ruled axis, and
// their indices to `from_text` (Grid::text_xs or text_ys).
void AddTextBounds(std::vector<float>& bounds, std::vector<std::size_t>& from_text,
                   const std::vector<float>& added) {
  bounds.insert(bounds.end(), added.begin(), added.end());
  std::sort(bounds.begin(), bounds.end());
  for (const float b : added) {
    from_text.push_back(static_cast<std::size_t>(std::lower_bound(bounds.begin(), bounds.end(), b) -
                                                 bounds.begin()));
  }
}

// Whether rows `a` and `b` each hold a number in the same column of `xs`.
bool NumbersInOneColumn(const std::vector<LineGeom>& a, const std::vector<LineGeom>& b,
                        const std::vector<float>& xs, std::span<const std::string> texts) {
  return std::any_of(a.begin(), a.end(), [&](const LineGeom& upper) {
    return IsNumeric(texts[upper.index]) &&
           std::any_of(b.begin(), b.end(), [&](const LineGeom& lower) {
             return IsNumeric(texts[lower.index]) &&
                    IntervalOf(xs, upper.CenterX()) == IntervalOf(xs, lower.CenterX());
           });
  });
}

// Adds the unruled gaps between a ruled axis's text rows as row boundaries where a number sits
// on both sides of the gap in one column: a column of values holds one value per row, so the
// rulings mark groups of rows there (a rule under the header, rules between the blocks of a
// statistical table, a cmidrule under a group heading), not each row. Other lines between two
// rulings stay in one row (the wrapped lines of its cells).
void AddNumberRows(Grid& grid, const std::vector<LineGeom>& lines,
                   std::span<const std::string> texts, float touch, float h) {
  const std::vector<std::vector<LineGeom>> rows = MergedTextRows(lines, grid.xs, h);
  std::vector<float> added;
  for (std::size_t i = 0; i + 1 < rows.size(); ++i) {
    const float from = RowBottom(rows[i]) - touch;
    const float to = RowTop(rows[i + 1]) + touch;
    const auto it = std::lower_bound(grid.ys.begin(), grid.ys.end(), from);
    if ((it == grid.ys.end() || *it > to) &&
        NumbersInOneColumn(rows[i], rows[i + 1], grid.xs, texts)) {
      added.push_back((RowBottom(rows[i]) + RowTop(rows[i + 1])) / 2);
    }
  }
  AddTextBounds(grid.ys, grid.text_ys, added);
}

// A column between two rulings holds two columns of text when a gutter runs through its rows
// with lines on both sides of it in at least this many rows, and in at least half of the rows
// holding its lines: rules that bound blocks of columns (two or three blocks of label and value
// set side by side), not each column. A cell whose text the detector split into two boxes has
// lines on both sides of a gap in one row only.
constexpr int kMinTextColumnRows = 3;

// Adds the gutters inside a ruled axis's columns as column boundaries where the text makes them
// columns (kMinTextColumnRows).
void AddTextColumns(Grid& grid, const std::vector<LineGeom>& lines, float h) {
  std::vector<float> added;
  for (std::size_t i = 0; i + 1 < grid.xs.size(); ++i) {
    std::vector<LineGeom> band;
    for (const LineGeom& g : lines) {
      if (g.CenterX() > grid.xs[i] && g.CenterX() < grid.xs[i + 1]) {
        band.push_back(g);
      }
    }
    const std::vector<std::vector<LineGeom>> rows = GroupRows(band);
    const auto allowed =
        static_cast<std::size_t>(kMaxCrossingRows * static_cast<float>(rows.size()));
    for (const float x : Gutters(band, grid.xs[i], grid.xs[i + 1], allowed, h)) {
      const auto both = std::count_if(rows.begin(), rows.end(), [x](const auto& row) {
        return std::any_of(row.begin(), row.end(),
                           [x](const LineGeom& g) { return g.right < x; }) &&
               std::any_of(row.begin(), row.end(), [x](const LineGeom& g) { return g.left > x; });
      });
      if (both >= kMinTextColumnRows && 2 * static_cast<std::size_t>(both) >= rows.size()) {
        added.push_back(x);
      }
    }
  }
  AddTextBounds(grid.xs, grid.text_xs, added);
}

}  // namespace

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
  if (grid.ruled_columns) {
    AddTextColumns(grid, lines, h);
  } else {
    std::vector<float> gutters = Gutters(lines, grid.xs.front(), grid.xs.back(), 0, h);
    gutters.insert(gutters.begin(), grid.xs.front());
    gutters.push_back(grid.xs.back());
    grid.xs = std::move(gutters);
  }
  if (!grid.ruled_rows) {
    grid.ys = TextRowBounds(lines, grid.xs, grid.ys.front(), grid.ys.back(), h);
  } else {
    AddNumberRows(grid, lines, texts, touch, h);
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

}  // namespace ocr::layout::internal
