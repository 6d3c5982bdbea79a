// Blocks within one column, for layout.cpp: the column's rows top to bottom, read into
// paragraphs, headings and list items, with the tables that stand in the column as blocks of
// their own.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "layout/internal/columns.h"
#include "layout/layout.h"
#include "layout/tables.h"

namespace ocr::layout::internal {

// What the row and block builders need to know about the page.
struct PageText {
  const std::vector<std::string>& texts;
  const std::vector<Table>& tables;  // a stand-in's LineGeom::index - texts.size()
  float h = 0;
};

// Appends the blocks of `column` to `blocks`, in reading order: its rows top to bottom (a table's
// stand-in is a row of its own), split into paragraphs where the vertical gap, the indentation
// or the text height changes markedly; rows taller than the body text are headings, and rows
// that start with a bullet or a number start list items. Blocks' extents are left for the
// caller to set.
void AppendColumnBlocks(const Column& column, const PageText& page, std::vector<Block>& blocks);

}  // namespace ocr::layout::internal
