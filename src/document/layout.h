// Layout analysis of one page's recognized lines: columns, rows, paragraphs and headings, from
// the lines' boxes alone. The writers in render.h turn the paragraphs into text, Markdown or HTML.
// Thread-safety: pure functions.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/types.h"

namespace ocr::document {

// A block of lines that belong together: consecutive lines of one column with no large vertical
// gap and no change of indentation or of text height between them.
struct Paragraph {
  std::vector<std::string> lines;  // texts, in reading order
  bool heading = false;            // text clearly taller than the page's body text
};

// Groups lines into paragraphs by geometry: columns are detected and read one after the other
// (left to right), and within a column lines are split where the vertical gap or the indentation
// or the text height changes markedly. Lines with no text once normalized are left out.
std::vector<Paragraph> GroupParagraphs(std::span<const pipeline::TextLine> lines);

// `text` with control whitespace (tab, CR, LF, VT, FF) turned into spaces and trimmed: a
// recognizer should not produce it, a text layer may, and it would break the
// one-line-per-line shape of every output.
std::string NormalizeText(std::string_view text);

}  // namespace ocr::document
