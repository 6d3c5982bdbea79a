// Detected lines as layout measures them: where their ink is. The detector's box reaches past
// the text by a margin on every side, which narrows the gaps between the cells of a dense table
// to less than a word space; the ink does not. Thread-safety: pure function.
#pragma once

#include <vector>

#include <opencv2/core.hpp>

#include "pipeline/types.h"

namespace ocr::document::internal {

struct InkLines {
  // The lines, each upright one (column_gaps.h IsUpright) with its box and its words' boxes
  // narrowed along the line to the first and last columns of ink they hold; other lines, and
  // lines without ink in their box, as they are.
  std::vector<pipeline::TextLine> lines;
  // The median height of the ink of the upright lines (ascender to descender), the page's text
  // height as a text layer would give it; infinity when no line is upright.
  double text_height = 0;
};

// Ink is the minority side of the line's own Otsu threshold (dark text on light, light on dark);
// a box whose grey levels differ by less than a faint stroke's contrast holds none. `page` is the
// image the lines were read from (8-bit, grey, BGR or BGRA).
InkLines FitToInk(const std::vector<pipeline::TextLine>& lines, const cv::Mat& page);

}  // namespace ocr::document::internal
