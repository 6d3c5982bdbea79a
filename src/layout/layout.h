// Layout analysis of one page's recognized lines: columns, paragraphs, headings, list items and
// tables, in reading order, from the lines' boxes and (for tables) the rulings of the page image.
// The writers in render.h turn the blocks into text, Markdown or HTML; the HTTP layer lists them
// as a page's `blocks`.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <opencv2/core.hpp>

#include "layout/line_geometry.h"
#include "layout/tables.h"
#include "pipeline/types.h"

namespace ocr::layout {

enum class BlockType { kParagraph, kHeading, kListItem, kTable };

std::string_view BlockTypeName(BlockType type);  // "paragraph", "heading", "list_item", "table"

// A run of lines that belong together, in page pixels.
struct Block {
  BlockType type = BlockType::kParagraph;
  float left = 0;
  float top = 0;
  float right = 0;
  float bottom = 0;
  TextRows rows;         // paragraphs, headings, list items: their lines, row by row
  int level = 0;         // headings: 1 (largest) to 3
  bool ordered = false;  // list items: numbered ("1.", "2)") rather than bulleted
  Table table;           // tables

  // Every line of the block in reading order (a table's cell by cell, row-major).
  std::vector<std::size_t> Lines() const;
};

// The page image, asked for only when the lines look like they may hold a table (a text-layer
// page renders it then, and only then). May return an empty Mat: tables are then found from
// alignment alone.
using PageImage = std::function<cv::Mat()>;

// Groups `lines` into blocks in reading order: columns are detected and read one after the other
// (left to right); tables are found first (tables.h) and read where they stand; within a column
// lines are split into paragraphs where the vertical gap, the indentation or the text height
// changes markedly, rows taller than the body text are headings, and rows that start with a
// bullet or a number start list items. Lines with no text once normalized are left out.
// Coordinates are the lines' (a slightly skewed page is straightened for the analysis only).
std::vector<Block> AnalyzeLayout(std::span<const pipeline::TextLine> lines,
                                 const PageImage& page_image = {});

// The layout of a page read by OCR from `image`: its upright lines are first measured by their
// ink (internal/line_ink.h) and cut at a table's column gaps between two numbers
// (internal/column_gaps.h), which the detector spans where a dense table's cells stand close;
// that needs their words (OcrOptions::read_words). `lines` becomes the cut lines, with the
// detector's geometry, which the blocks index; the blocks are laid out from the lines' ink. A
// table cell that reads "o" alone in a column of numbers is a zero the recognizer could not tell
// from the letter: its line reads "0".
std::vector<Block> AnalyzeOcrLayout(std::vector<pipeline::TextLine>& lines, const cv::Mat& image);

// `text` with control whitespace (tab, CR, LF, VT, FF) turned into spaces and trimmed: a
// recognizer should not produce it, a text layer may, and it would break the
// one-line-per-line shape of every output.
std::string NormalizeText(std::string_view text);

// A list item's marker at the start of `text`: its length in bytes (marker and the space after
// it), 0 when `text` does not start with one. `number` is set for a numbered item ("12." or
// "12)"), else left alone.
std::size_t ListMarker(std::string_view text, int* number = nullptr);

}  // namespace ocr::layout
