// Ruled tables, for tables.cpp: the connected grids of a page's rulings, and the table of each
// (its axes from the rulings, or from the text where an axis is not ruled).
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "layout/internal/table_grid.h"
#include "layout/line_geometry.h"
#include "layout/rulings.h"
#include "layout/tables.h"

namespace ocr::layout::internal {

struct RuledRegion {
  Box box;
  std::vector<Ruling> horizontal;
  std::vector<Ruling> vertical;
};

// Connected sets of crossing or touching rulings with at least two of each direction.
std::vector<RuledRegion> RuledRegions(std::span<const Ruling> rulings, float h);

// A ruled region's table, or nothing when its grid or its text is too thin to be one.
std::optional<Table> RuledTable(const RuledRegion& region, const std::vector<LineGeom>& lines,
                                std::span<const std::string> texts, float h);

}  // namespace ocr::layout::internal
