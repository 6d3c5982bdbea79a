// Unruled tables, for tables.cpp: runs of text rows whose boxes sit apart like cells, and the
// grid their alignment makes (columns from the gutters through the rows, rows from the text).
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "layout/line_geometry.h"
#include "layout/rulings.h"
#include "layout/tables.h"

namespace ocr::layout::internal {

// Candidate unruled tables, as [begin, end) ranges of `rows` (text rows, top to bottom): runs of
// rows with cell gaps (at least two), no more than kMaxRowGap apart (kMaxLooseRowGap where two
// rows of cells line up), with up to kMaxSingleRows single-box rows between two of them (no line
// of prose across the cells), and the wrapped lines of a last cell below the last.
std::vector<std::pair<std::size_t, std::size_t>> UnruledRuns(
    const std::vector<std::vector<LineGeom>>& rows, float h);

// An unruled table over the rows `rows` (consecutive text rows), or nothing when they do not
// form a grid. `horizontal` are the page's horizontal rulings (a rule under the header row, the
// top and bottom rules of a booktabs table, rules between rows); `band_edges` the top and bottom
// edges of its shaded bands (zebra stripes, a shaded header row). Where rules or edges divide
// most rows, they decide the rows: the lines between two of them are one row, however many text
// rows its wrapped cells make.
std::optional<Table> UnruledTable(const std::vector<std::vector<LineGeom>>& rows,
                                  std::span<const std::string> texts,
                                  const std::vector<Ruling>& horizontal,
                                  const std::vector<Ruling>& vertical,
                                  const std::vector<Ruling>& band_edges, float h);

}  // namespace ocr::layout::internal
