// A table's header rows: text cells (CellText; numbers are table_grid.h's IsNumeric) and the rules
// that make leading rows a header (HeaderRows).
#include "layout/internal/table_header.h"

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "layout/internal/table_grid.h"

namespace ocr::layout::internal {
namespace {

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

}  // namespace

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

}  // namespace ocr::layout::internal
