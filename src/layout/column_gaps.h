// Cutting lines at a table's column gaps: the cells of a dense table, set closer than a column
// gutter of the page, are joined into one line by a text layer's spaces and by the text
// detector alike; the whitespace channel that runs down through their rows tells them apart.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <vector>

#include "pipeline/types.h"

namespace ocr::layout {

// Whether `box` is upright text: its top edge level (a scan's skew of a degree or two allowed),
// read left to right.
bool IsUpright(const pipeline::Quad& box);

// For each line of `lines`, the indices of the words (TextLine::words) that start a new part of
// it, ascending: each gap before such a word is a column gap. Only upright lines are cut, at a
// gap at least half of `height` (the page's typical text height) wide with a channel of
// whitespace as wide running through it and through at least three rows next to it (rows no
// further apart than two heights), words on both sides of it in at least two of them; unless
// numbers stand on both sides of the gap, it is also 1.8 word spaces wide (the narrow end of
// the gaps beside words of letters in lines of its size), and only cut when `beside_letters`: a
// text layer's word boxes are exact, a recognizer's are not (a photo's justified prose would be
// cut at its wide spaces), and the cells a detector joins are the close numbers of dense tables.
using ColumnCuts = std::vector<std::vector<std::size_t>>;
ColumnCuts FindColumnGaps(const std::vector<pipeline::TextLine>& lines, double height,
                          bool beside_letters);

// `lines` cut at `cuts` (FindColumnGaps of lines with the same words): each part is a line of its
// own right after the one it was cut from, with its words, their text joined by spaces, the
// line's confidence, and the box around its words (for a line whose box is not axis-aligned, the
// line's own slant from its first word's left edge to its last word's right edge).
std::vector<pipeline::TextLine> CutLines(std::vector<pipeline::TextLine> lines,
                                         const ColumnCuts& cuts);

}  // namespace ocr::layout
