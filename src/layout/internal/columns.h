// Columns and their reading order, for layout.cpp: a page's lines split at the gutters between
// columns, and into bands where lines span a gutter (a title over two columns).
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "layout/line_geometry.h"

namespace ocr::layout::internal {

using Column = std::vector<LineGeom>;  // the lines of one column (or of one run of spanning lines)

// Splits `lines` into blocks in reading order: columns left to right; where lines span the
// gutter, they cut the page into horizontal bands read top to bottom, each band's columns read
// before the spanning lines below it. `h` is the page's median line height; `depth` the nesting
// level of the split (0 for a page), bounded so that adversarial box sets stay cheap.
std::vector<Column> SplitColumns(std::vector<LineGeom> lines, float h, int depth);

}  // namespace ocr::layout::internal
