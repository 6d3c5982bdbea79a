// Detected lines as layout measures them: where their ink is. The detector's box reaches past
// the text by a margin on every side, which narrows the gaps between the cells of a dense table
// to less than a word space; the ink does not. Thread-safety: pure function.
#pragma once

#include <vector>

#include <opencv2/core.hpp>

#include "pipeline/types.h"

namespace ocr::layout::internal {

// A detected box is this many times as tall as its text: the detector grows the text's kernel by
// a margin on every side. On the ICDAR 2013 pages read both ways, the median OCR box is 1.1-1.4
// times the text layer's line of the same page at the same resolution.
inline constexpr double kBoxPerTextHeight = 1.35;

struct InkLines {
  // The lines, each upright one (column_gaps.h IsUpright) with its box and its words' boxes
  // narrowed along the line to the first and last columns of ink they hold, and two neighbouring
  // words whose boxes still meet (a recognizer's word box reaches a column past its letters,
  // across a narrow word space) parted at the widest run of blank columns between their centres;
  // other lines, and lines without ink in their box, as they are.
  std::vector<pipeline::TextLine> lines;
  // The page's text height as a text layer would give it: the median height of the upright
  // lines' boxes over kBoxPerTextHeight; infinity when no line is upright. (The ink's own height
  // is no measure of it on a photo, where a line's threshold keeps only its strokes' dark cores.)
  double text_height = 0;
};

// Ink is the minority side of the line's own Otsu threshold (dark text on light, light on dark);
// a box whose grey levels differ by less than a faint stroke's contrast holds none. `page` is the
// image the lines were read from (8-bit, grey, BGR or BGRA).
InkLines FitToInk(const std::vector<pipeline::TextLine>& lines, const cv::Mat& page);

}  // namespace ocr::layout::internal
