// Blank stretches of a text line are not read. A detected line of a form often runs from a label
// across an empty field to its value ("Date:            12/03/91"), and the recognizer's cost
// grows with the crop's width, blank or not (every crop is scaled to the model's height). The crop
// is cut where its column profile shows a wide run of background, each inked piece is recognized
// on its own, and the pieces' readings are joined with a word space where the gap was.
// Thread-safety: pure functions.
#pragma once

#include <span>
#include <vector>

#include <opencv2/core/mat.hpp>

#include "pipeline/rec/ctc_decode.h"

namespace ocr::pipeline {

// A run of crop columns to recognize: [x0, x1).
struct InkSpan {
  int x0 = 0;
  int x1 = 0;
};

// Background kept on each side of ink, in crop heights: about half a letter's height, the margin
// the recognizer sees around a detected line.
inline constexpr float kInkPadding = 0.25f;

// The pieces of `crop` (CV_8UC3) worth recognizing. The paper is the crop's median grey level and
// the print the darker (or lighter) end of its range; a pixel 0.3 of the way from paper to print
// is ink, so light and coloured print counts. A column is inked when it holds an ink pixel, or two
// where the crop is at least 16 px high, so one speckle does not bridge a gap. The crop is cut in
// every run of background columns at least `min_gap` crop heights wide, and background beyond
// kInkPadding is dropped at both ends and in each cut. One span over the whole crop when
// `min_gap` <= 0, when paper and print differ by less than a sixth of the grey range (no clear
// print to go by) or when the spans would spare less than a tenth of the crop's width or two of
// its heights (not worth changing what the recognizer sees).
std::vector<InkSpan> InkSpans(const cv::Mat& crop, float min_gap);

// One reading of a whole crop from the readings of its spans (same order, `spans[i]` read as
// `pieces[i]`): characters in crop columns of the first read piece's width, a " " in each cut
// between two non-empty readings where a Latin character meets it (never between two CJK ones:
// their gaps are letter-spacing, and rec/word_spaces.h never writes one there either), the
// confidence the mean over all kept characters, as one reading of the line would have it. An
// empty piece leaves no trace.
DecodedText JoinSpans(std::span<const DecodedText> pieces, std::span<const InkSpan> spans);

}  // namespace ocr::pipeline
