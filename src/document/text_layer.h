// A PDF page's text layer as OCR-like lines: poppler's words (pdf/pdf_document.h) grouped into
// lines with quads, and the rule that tells a real text layer from an empty or garbage one, which
// decides whether a page is read from its layer or rendered and OCR'd (document.cpp).
// Thread-safety: pure functions; ReadTextLayer as thread-safe as the PdfDocument it reads.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "pdf/pdf_document.h"
#include "pipeline/types.h"

namespace ocr::document {

// Groups consecutive words into lines: same rotation, overlapping rows (across the reading
// direction), and adjacent along it (no step back, gap at most 1.5 line heights with a space
// between them in the layer, 0.8 without: cells of a table row stay apart). Each line's
// text joins its words with a space where the layer has one or the gap is visible; its quad is
// the union of the word boxes, clockwise from the top-left corner of the text as it is read;
// confidence is 1. Each line keeps its words (TextLine::words) as its text spells them: layer
// words joined without a space are one word, with the union of their boxes; confidence 1.
// Words with empty text or empty boxes are dropped. Then an upright line is cut at a word gap that
// is a table's column gap: half a line height or wider (and 1.8 word spaces of its size, unless
// numbers stand on both sides), with a channel of whitespace as wide running through it and
// through at least three rows next to it, words on both sides in two of them (the numbers of a
// dense statistical table, set closer than a column gutter of the page).
std::vector<pipeline::TextLine> GroupIntoLines(std::span<const pdf::Word> words);

// Whether `lines` carry real text: at least kMinUsableChars visible code points, and at least
// 90% of the non-space code points are neither U+FFFD, private use, controls, nor invalid UTF-8
// (what unmapped glyphs of fonts without a ToUnicode map look like).
inline constexpr int kMinUsableChars = 3;

bool IsUsableTextLayer(std::span<const pipeline::TextLine> lines);

// A page's text layer, in RENDERED pixel coordinates (the frame of PdfDocument::RenderPage()).
// A text layer is whatever the file's author put there: it can differ from what the page shows.
struct TextLayerPage {
  // One per text line (GroupIntoLines), in poppler's reading order, confidence 1.0, each with its
  // words (text, box, confidence 1.0) in reading order. Boxes are clipped to the page; a line or
  // word on a rotated page (or rotated text) has its quad starting at the top-left corner of the
  // text as it is read.
  std::vector<pipeline::TextLine> lines;
  // IsUsableTextLayer(lines): false for scans (no text, or only whitespace / unmapped glyphs).
  bool usable = false;
};

// Reads page `page`'s words and groups them. Errors: those of PdfDocument::Words().
Result<TextLayerPage> ReadTextLayer(const pdf::PdfDocument& document, int page);

}  // namespace ocr::document
