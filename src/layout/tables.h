// Tables from geometry: regions of a page whose lines sit in a grid, found from the page's
// rulings (a ruled grid) or from the alignment of the lines themselves (an unruled table), with
// the grid's rows, columns and spanning cells. No model: only what the boxes and strokes show,
// and nothing where they leave doubt (a false table is worse than a missed one).
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "layout/line_geometry.h"
#include "layout/rulings.h"
#include "layout/shading.h"

namespace ocr::layout {

// A grid with more positions than this is no table of a page (a dense financial table has about
// a thousand): a hatched pattern or an adversarial page, refused before any work on it.
inline constexpr std::size_t kMaxTableCells = 20000;

struct TableCell {
  int row = 0;
  int col = 0;
  int row_span = 1;
  int col_span = 1;
  TextRows rows;  // the cell's lines, as rows of line indices (empty for an empty cell)
};

struct Table {
  float left = 0;
  float top = 0;
  float right = 0;
  float bottom = 0;
  int row_count = 0;
  int col_count = 0;
  int header_rows = 0;             // leading rows that are evidently a header (0: none evident)
  std::vector<TableCell> cells;    // every grid position covered once, row-major by origin
  std::vector<std::size_t> lines;  // the lines the table holds
};

// The tables among `lines` (their LineGeoms; `texts` indexed by LineGeom::index), given the
// page's `rulings` and shaded `bands` in the same frame and the median line height `h`. Each line
// belongs to at most one table; tables are in no particular order.
std::vector<Table> FindTables(std::span<const LineGeom> lines, std::span<const std::string> texts,
                              std::span<const Ruling> rulings, std::span<const Band> bands,
                              float h);

}  // namespace ocr::layout
