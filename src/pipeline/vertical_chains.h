// Vertical text the detector cut into pieces. PP-OCR's detector is trained on horizontal lines:
// on a line turned 90 degrees (a document number printed along a form's margin) its map breaks
// between characters, and the line comes out as a column of short boxes ("80", "15", "346", "91"
// for "91346 1580"), each read on its own and in the wrong order. A chain of such pieces is read
// again as one box, and that reading replaces the pieces' when the recognizer is at least as sure
// of it (Pipeline::Run): a column of single characters from horizontal lines (list numbers, a
// table's column) reads badly turned sideways and stays as it was.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "pipeline/types.h"

namespace ocr::pipeline {

// Pieces of one vertical line, indices into the boxes given, top to bottom, and the box around
// them all (clockwise from the top-left corner of the page: CropTextLine turns it to read).
struct VerticalChain {
  std::vector<size_t> members;
  Quad box;
};

// Chains of boxes that continue one another down a column: each no wider than 1.2 times its
// height (a piece of a turned line is as wide as the text is high), consecutive ones overlapping
// across at least half the narrower one's width, their widths within a factor 1.5, the gap
// between them at most 0.75 of their mean width (a word space of the turned line; the rows of a
// table's column of digits lie further apart); at least two pieces
// taller than 1.5 times their width, and the chain at least 4 times as tall as it is wide (a line,
// not two tall letters of two lines, which stack to about 3). A box is in at most one chain.
std::vector<VerticalChain> VerticalChains(std::span<const Quad> boxes);

}  // namespace ocr::pipeline
