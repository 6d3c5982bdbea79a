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
// The two sources are internal/ruled_tables.h and internal/unruled_tables.h, over the grid of
// internal/table_grid.h, with cells from internal/table_cells.h and header rows from
// internal/table_header.h. This file owns FindTables: which lines each source may take.
//
// Thresholds are in units of the page's median line height (h), as in layout.cpp.
#include "document/tables.h"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "document/internal/ruled_tables.h"
#include "document/internal/table_grid.h"
#include "document/internal/unruled_tables.h"

namespace ocr::document {

using internal::Box;
using internal::RuledRegion;
using internal::RuledRegions;
using internal::RuledTable;
using internal::UnruledRuns;
using internal::UnruledTable;

namespace {

// A page with more rulings than this is a pattern (graph paper, hatching), not tables: they are
// not looked at (which also bounds the pairwise search for crossings).
constexpr std::size_t kMaxRulings = 2000;

bool Inside(const LineGeom& g, const Box& box, float slack) {
  return g.CenterX() >= box.left - slack && g.CenterX() <= box.right + slack &&
         g.center_y >= box.top - slack && g.center_y <= box.bottom + slack;
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
