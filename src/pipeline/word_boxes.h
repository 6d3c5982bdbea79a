// Word boxes: splits a recognized line into words and locates each one in the image from the
// CTC column positions of its characters. Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "pipeline/rec/ctc_decode.h"
#include "pipeline/types.h"

namespace ocr::pipeline {

// One word of a decoded line, located in the crop's own x coordinates.
struct WordSpan {
  std::string text;
  float confidence = 0;  // mean of its characters' probabilities
  float x0 = 0;          // left edge in crop pixels
  float x1 = 0;          // right edge in crop pixels
};

// Splits `decoded` into maximal runs of characters other than " " (text without spaces, such as
// CJK, is one word per run). A word spans from the left edge of its first character's column to
// the right edge of its last one's, widened by one column on each side (CTC peaks fall inside a
// glyph, so the bare columns cut the outer letters short) and clamped to [0, crop_width]. REQUIRES:
// decoded.column_width > 0 for meaningful positions.
std::vector<WordSpan> SplitWords(const DecodedText& decoded, int crop_width);

// The words of `decoded`, recognized on CropTextLine's crop of `box` (turned 180 degrees by the
// classifier when `flipped180`), with their boxes in image pixels.
std::vector<Word> LocateWords(const DecodedText& decoded, const Quad& box, bool flipped180);

}  // namespace ocr::pipeline
