// A table's grid, shared by the files of table finding: the grid's boundaries and the box of a
// region, the tolerances the files share, and the boundaries found from positions and from text
// (clustered positions, the gutters between columns of lines, the text rows with wrapped cells
// merged). Defined in internal/table_grid.cpp.
//
// Thresholds are in units of the page's median line height (h), as in layout.cpp.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "layout/line_geometry.h"

namespace ocr::layout::internal {

// Rulings within this distance of each other (or of a crossing) touch; positions this close are
// one boundary. Covers antialiasing, a doubled border and detector jitter, far below a row.
inline constexpr float kTouch = 0.35F;

// A text row closer than this to the row above (or, where the table's rows are further apart than
// that, closer than most of their gap: TextRowBounds), holding lines in fewer than half of the
// columns, each set like a line above it in its column (left, centre or right edges aligned),
// continues wrapped cells instead of starting a row. Lines of one cell are set with their leading
// (0 to 0.3 h apart once the detector has padded the boxes); rows of a table with padding on both
// sides.
inline constexpr float kWrapGap = 0.4F;

// Fraction of a gutter's rows that may cross it (a heading over two columns, a wide title cell):
// a spanning cell, not a reason to drop the column.
inline constexpr float kMaxCrossingRows = 0.2F;

struct Box {
  float left = 0;
  float top = 0;
  float right = 0;
  float bottom = 0;
};

// The grid of one table region before validation.
struct Grid {
  std::vector<float> xs;  // column boundaries, outer edges included
  std::vector<float> ys;  // row boundaries, outer edges included
  bool ruled_columns = false;
  bool ruled_rows = false;
  // On a ruled axis, the boundaries (indices into xs and ys) found from the text between two
  // rulings rather than from a ruling: no cell spans them.
  std::vector<std::size_t> text_xs;
  std::vector<std::size_t> text_ys;
};

// The middle value of `values` (the upper of the two middle ones for an even count), or 0 for
// none.
float UpperMedian(std::vector<float> values);

// The top of a row's highest line and the bottom of its lowest (`row` not empty).
float RowTop(const std::vector<LineGeom>& row);
float RowBottom(const std::vector<LineGeom>& row);

// How far under a line a wrapped cell's next line may sit, for the text rows `rows` of a table
// (top to bottom): kWrapGap, or most of the median gap above a row of several cells where the
// rows are further apart than that.
float WrapGap(std::span<const std::vector<LineGeom>> rows, float h);

// Sorted positions with those closer than `tolerance` merged into their mean.
std::vector<float> Cluster(std::vector<float> values, float tolerance);

// Index of the interval of `bounds` (ascending boundaries, outer edges included) holding `v`,
// clamped to the first and last interval (0 when there is one interval or none).
int IntervalOf(const std::vector<float>& bounds, float v);

// Boundaries (centres of gutters) between the columns of `lines` within [left, right]: vertical
// whitespace channels at least kMinGutter wide that at most `allowed_crossers` lines cross.
std::vector<float> Gutters(const std::vector<LineGeom>& lines, float left, float right,
                           std::size_t allowed_crossers, float h);

// Whether two lines of one column are set alike: left, centre or right edges within kWrapAlign.
bool Aligned(const LineGeom& a, const LineGeom& b, float h);

// Whether a cell's text is a number: at least half of its non-space characters are digits and
// the rest signs, separators, units of money or percent, or footnote marks (`*`); or it is a lone
// dash, how tables print an empty numeric cell. En and em dashes and the minus sign count as `-`.
bool IsNumeric(std::string_view text);

// Text rows of `lines` (top to bottom), with rows that only continue wrapped cells (given column
// boundaries `xs`) merged into the row above.
std::vector<std::vector<LineGeom>> MergedTextRows(const std::vector<LineGeom>& lines,
                                                  const std::vector<float>& xs, float h);

// The boundaries of MergedTextRows: the middle of each gap, outer edges included.
std::vector<float> TextRowBounds(const std::vector<LineGeom>& lines, const std::vector<float>& xs,
                                 float top, float bottom, float h);

}  // namespace ocr::layout::internal
