// Turns recognized lines (with boxes, in reading order) into text, Markdown or HTML documents.
// Shared by the CLI (`onnxocr run --format`) and the HTTP API (`output_format`), and applied per
// page for multi-page documents. Thread-safety: pure functions.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "pipeline/types.h"

namespace ocr::pipeline {

enum class OutputFormat { kJson, kText, kMarkdown, kHtml };

// Accepts "json", "text", "markdown", "html" (case-insensitive); kInvalidArgument otherwise,
// with a message that lists the accepted values.
Result<OutputFormat> ParseOutputFormat(std::string_view name);

std::string_view OutputFormatName(OutputFormat format);

// A block of lines that belong together: consecutive lines of one column with no large vertical
// gap and no change of indentation or of text height between them.
struct Paragraph {
  std::vector<std::string> lines;  // texts, in reading order
  bool heading = false;            // text clearly taller than the page's body text
};

// Groups lines into paragraphs by geometry: columns are detected and read one after the other
// (left to right), and within a column lines are split where the vertical gap or the indentation
// or the text height changes markedly.
std::vector<Paragraph> GroupParagraphs(std::span<const TextLine> lines);

// The document in `format`: FormatText, FormatMarkdown or FormatHtml; empty for kJson (JSON is
// the HTTP layer's business).
std::string FormatLines(OutputFormat format, std::span<const TextLine> lines);

// Escapes & < > " ' for HTML text and attribute values.
std::string EscapeHtml(std::string_view text);

// The lines' texts in the given order, one per line ("\n"-separated, with a final newline when
// not empty).
std::string FormatText(std::span<const TextLine> lines);

// Paragraphs separated by blank lines; a paragraph's lines joined by single spaces; headings
// as "## "; characters that Markdown would interpret escaped with a backslash.
std::string FormatMarkdown(std::span<const TextLine> lines);

// The same structure as semantic HTML: <h2> for headings, <p> for paragraphs (lines separated by
// <br>), text HTML-escaped. A fragment, not a whole document.
std::string FormatHtml(std::span<const TextLine> lines);

}  // namespace ocr::pipeline
