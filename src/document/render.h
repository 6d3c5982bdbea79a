// The writers: recognized lines (with boxes, in reading order) as text, Markdown or HTML, page
// by page for documents. Shared by the CLI (`onnxocr run --format`) and the HTTP API
// (`output_format`); JSON is the HTTP layer's business (http/response_json.h).
// Thread-safety: pure functions.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "common/status.h"
#include "document/document.h"
#include "pipeline/types.h"

namespace ocr::document {

enum class OutputFormat { kJson, kText, kMarkdown, kHtml };

// Accepts "json", "text", "markdown", "html" (case-insensitive); kInvalidArgument otherwise,
// with a message that lists the accepted values.
Result<OutputFormat> ParseOutputFormat(std::string_view name);

std::string_view OutputFormatName(OutputFormat format);

// The lines in `format`: FormatText, FormatMarkdown or FormatHtml; empty for kJson.
std::string FormatLines(OutputFormat format, std::span<const pipeline::TextLine> lines);

// The lines' texts in the given order, one per line ("\n"-separated, with a final newline when
// not empty).
std::string FormatText(std::span<const pipeline::TextLine> lines);

// Paragraphs separated by blank lines; a paragraph's lines joined by single spaces; headings
// as "## "; characters that Markdown would interpret escaped with a backslash.
std::string FormatMarkdown(std::span<const pipeline::TextLine> lines);

// The same structure as semantic HTML: <h2> for headings, <p> for paragraphs (lines separated by
// <br>), text HTML-escaped. A fragment, not a whole document.
std::string FormatHtml(std::span<const pipeline::TextLine> lines);

// The document as text, Markdown or HTML, page after page. With `paginate`, text and Markdown
// are paginated exactly as marker's server does it (spec/API.md: "\n\n{N}" + 48 dashes +
// "\n\n" before each page). HTML is a whole HTML5 document (UTF-8), each page a
// <div class='page' data-page-id='N'> when paginated.
std::string FormatDocument(const DocumentResult& document, OutputFormat format, bool paginate);

}  // namespace ocr::document
