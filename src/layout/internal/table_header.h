// A table's header rows, for internal/ruled_tables.cpp and internal/unruled_tables.cpp: which
// leading rows are evidently column headings, from the cells' text (numbers or not), spanning
// cells and a rule under the first row.
// Thread-safety: pure functions.
#pragma once

#include <span>
#include <string>

#include "layout/tables.h"

namespace ocr::layout::internal {

// Leading header rows, when evident: the first row is all text (no numbers, no empty cells)
// while some column below it is mostly numbers, or it holds a cell spanning some but not all
// columns (a group heading), or a ruling under it is the only one inside an otherwise unruled
// table. A first-row cell spanning rows carries the header down with it, and so does a row of
// column headings under a group heading.
int HeaderRows(const Table& table, std::span<const std::string> texts, bool rule_under_first);

}  // namespace ocr::layout::internal
