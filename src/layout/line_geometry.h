// One text line reduced to what layout and table finding need, and the grouping of lines into
// rows, shared by layout.cpp and tables.cpp.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "pipeline/types.h"

namespace ocr::layout {

// A line's axis-aligned summary: its horizontal extent from the quad's corners, and its vertical
// centre and height from the quad's left and right edges, so a slanted line keeps its true height
// instead of the taller height of its bounding rectangle. `index` is the line's index in the
// page's lines.
struct LineGeom {
  std::size_t index = 0;
  float left = 0;
  float right = 0;
  float center_y = 0;
  float height = 0;

  float Top() const { return center_y - height / 2; }

  float Bottom() const { return center_y + height / 2; }

  float CenterX() const { return (left + right) / 2; }
};

// Rows of line indices, top to bottom; each row's lines left to right.
using TextRows = std::vector<std::vector<std::size_t>>;

// `box` (coordinates made finite and clamped) as a LineGeom with `index`.
LineGeom MeasureLine(const pipeline::Quad& box, std::size_t index);

// `lines` grouped into rows: sorted top to bottom; a line joins the row of the topmost line of the
// current row (its anchor, so a slow drift of centres cannot chain rows together) when their
// centres are closer than half the smaller height; each row sorted left to right.
std::vector<std::vector<LineGeom>> GroupRows(std::vector<LineGeom> lines);

// The rows of `order`, lines of `lines` already in reading order (row by row, each row left to
// right, as a block lists them), found again from their boxes: a line continues the current row
// when it does not start left of the line before it and their centres are within GroupRows'
// distance. How a block read back from an answer's JSON, which lists its lines
// but not its rows, gets them again. Indices past `lines` are the caller's to refuse first.
TextRows RowsInReadingOrder(std::span<const pipeline::TextLine> lines,
                            std::span<const std::size_t> order);

}  // namespace ocr::layout
