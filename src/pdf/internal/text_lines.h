// Text-layer helpers of pdf/, free of poppler so that they can be tested with synthetic words:
// grouping words into lines with quads, and telling a real text layer from an empty or garbage
// one. Thread-safety: pure functions.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/types.h"

namespace ocr::pdf::internal {

// One word of a text layer, in rendered pixels (y down), in the page's reading order.
struct WordBox {
  std::string text;  // UTF-8
  double x0 = 0;     // left
  double y0 = 0;     // top
  double x1 = 0;     // right
  double y1 = 0;     // bottom
  // Reading direction in quarter turns clockwise: 0 left-to-right, 1 top-to-bottom,
  // 2 right-to-left (upside down), 3 bottom-to-top (poppler's TextWord rotation).
  int rotation = 0;
  bool space_after = false;  // the layer has a space between this word and the next
};

// Groups consecutive words into lines: same rotation, overlapping rows (across the reading
// direction), and adjacent along it (no step back, gap at most 1.5 line heights). Each line's
// text joins its words with a space where the layer has one or the gap is visible; its quad is
// the union of the word boxes, clockwise from the top-left corner of the text as it is read;
// confidence is 1. Each line keeps its words (TextLine::words) as its text spells them: layer
// words joined without a space are one word, with the union of their boxes; confidence 1.
// Words with empty text or empty boxes are dropped.
std::vector<pipeline::TextLine> GroupIntoLines(std::span<const WordBox> words);

// Whether `lines` carry real text: at least kMinUsableChars visible code points, and at least
// 90% of the non-space code points are neither U+FFFD, private use, controls, nor invalid UTF-8
// (what unmapped glyphs of fonts without a ToUnicode map look like).
inline constexpr int kMinUsableChars = 3;

bool IsUsableTextLayer(std::span<const pipeline::TextLine> lines);

}  // namespace ocr::pdf::internal
