// Table finding. Three sources of evidence, used together:
//  - Rulings (rulings.h). Horizontal and vertical rulings that cross or touch form a connected
//    grid; a grid with two rows that each hold text in two cells is a ruled table (a frame, a
//    form's boxes or a stack of buttons is not). Where a border between two grid cells is
//    missing, the cells are one spanning cell.
//  - Shaded bands (shading.h). A band's top and bottom edges divide rows as rules do (zebra
//    stripes, a shaded header row); a dark band hides the rules drawn across it, and the light
//    letters on it are no rules.
//  - Alignment. Consecutive rows of lines that each hold several separate boxes, with vertical
//    channels of whitespace running through all of them (gutters), are an unruled table; rows are
//    the text rows, with a row that only continues wrapped cells merged into the one above.
// An axis that a ruled table does not rule (a frame with no inner verticals, rows without inner
// rules) takes its boundaries from the text in the same way.
//
// The tables are internal/ruled_tables.h's and internal/unruled_tables.h's, over the grid of
// internal/table_grid.h, with cells from internal/table_cells.h and header rows from
// internal/table_header.h. This file owns FindTables: which lines each source may take.
//
// Thresholds are in units of the page's median line height (h), as in layout.cpp.
#include "layout/tables.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "layout/internal/ruled_tables.h"
#include "layout/internal/table_grid.h"
#include "layout/internal/unruled_tables.h"

namespace ocr::layout {

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

// A band darker than this hides the dark rules drawn across it (a dark header row).
constexpr int kDarkFill = 128;

// Whether vertical ruling `r` lies inside one of `bands`, ends included (with `slack`).
bool WithinBand(const Ruling& r, std::span<const Band> bands, float slack) {
  return std::any_of(bands.begin(), bands.end(), [&](const Band& b) {
    return r.x0 >= b.left && r.x0 <= b.right && r.y0 >= b.top - slack && r.y1 <= b.bottom + slack;
  });
}

// Whether vertical ruling `r` runs through the text of at least half of the text `rows` it
// passes (through a line's inside, over most of its height): then it is the stems of letters
// that line up from row to row (light letters on a dark column read as rules), not a border. A
// border runs beside the text of its cells; a detector's box that joins two cells across it
// crosses it in one row, not in most.
bool ThroughText(const Ruling& r, const std::vector<std::vector<LineGeom>>& rows, float h) {
  int passed = 0;
  int crossed = 0;
  for (const std::vector<LineGeom>& row : rows) {
    const LineGeom& first = row.front();
    if (std::min(r.y1, first.Bottom()) - std::max(r.y0, first.Top()) < 0.5F * first.height) {
      continue;
    }
    ++passed;
    crossed += std::any_of(row.begin(), row.end(), [&](const LineGeom& g) {
      const float inset = std::min(0.5F * h, (g.right - g.left) / 4);
      return r.x0 > g.left + inset && r.x0 < g.right - inset;
    });
  }
  return crossed > 0 && 2 * crossed >= passed;
}

}  // namespace

std::vector<Table> FindTables(std::span<const LineGeom> lines, std::span<const std::string> texts,
                              std::span<const Ruling> rulings, std::span<const Band> bands,
                              float h) {
  std::vector<Table> tables;
  if (lines.empty() || !(h >= 1.0F)) {
    return tables;
  }
  if (rulings.size() > kMaxRulings) {
    rulings = {};
  }
  if (bands.size() > kMaxRulings) {
    bands = {};
  }
  const float touch = internal::kTouch * h + 2.0F;
  std::vector<Ruling> horizontal;
  std::vector<Ruling> vertical;
  std::vector<Ruling> kept;
  const std::vector<std::vector<LineGeom>> text_rows =
      GroupRows(std::vector<LineGeom>(lines.begin(), lines.end()));
  for (Ruling r : rulings) {
    if (!r.Horizontal()) {
      if (WithinBand(r, bands, touch) || ThroughText(r, text_rows, h)) {
        continue;  // between or through the letters of a line, not a rule
      }
      // A rule that stops at a dark band runs on under it: a dark header row over a grid.
      for (const Band& b : bands) {
        if (b.fill < kDarkFill && r.x0 >= b.left && r.x0 <= b.right) {
          r.y0 = std::abs(r.y0 - b.bottom) <= touch ? std::min(r.y0, b.top) : r.y0;
          r.y1 = std::abs(r.y1 - b.top) <= touch ? std::max(r.y1, b.bottom) : r.y1;
        }
      }
    }
    (r.Horizontal() ? horizontal : vertical).push_back(r);
    kept.push_back(r);
  }
  // A band's top and bottom edges divide rows as a horizontal rule does: in a grid (a dark header
  // row hides the rule under it) and in an unruled table (zebra stripes).
  std::vector<Ruling> band_edges;
  for (const Band& b : bands) {
    band_edges.push_back(Ruling{b.left, b.top, b.right, b.top});
    band_edges.push_back(Ruling{b.left, b.bottom, b.right, b.bottom});
  }
  kept.insert(kept.end(), band_edges.begin(), band_edges.end());
  std::vector<bool> taken(texts.size(), false);
  for (const RuledRegion& region : RuledRegions(kept, h)) {
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
    std::optional<Table> table = UnruledTable(run, texts, horizontal, vertical, band_edges, h);
    if (table) {
      tables.push_back(std::move(*table));
    }
  }
  return tables;
}

}  // namespace ocr::layout
