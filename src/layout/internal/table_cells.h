// A table's cells from its grid, for internal/ruled_tables.cpp and internal/unruled_tables.cpp:
// the lines placed in the grid, neighbouring positions joined into spanning cells where no ruling
// separates them (a ruled axis) or a line crosses their border (a text axis), and each cell's
// lines as text rows. The header rows are left to the caller (internal/table_header.h).
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <vector>

#include "layout/internal/table_grid.h"
#include "layout/line_geometry.h"
#include "layout/rulings.h"
#include "layout/tables.h"

namespace ocr::layout::internal {

// Builds the table of `grid` over `lines` (all inside it), or nothing when the grid has more
// positions than a page's table can (a hatched pattern, an adversarial page).
std::optional<Table> BuildTable(const Grid& grid, const std::vector<LineGeom>& lines,
                                const std::vector<Ruling>& horizontal,
                                const std::vector<Ruling>& vertical, float h);

}  // namespace ocr::layout::internal
