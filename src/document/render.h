// The writers: recognized lines (with boxes, in reading order) as text, Markdown or HTML, page
// by page for documents, and the archive formats hOCR and ALTO (archive_xml.h) for whole
// documents. Shared by the CLI (`onnxocr run --format`) and the HTTP API
// (`output_format`); JSON is the HTTP layer's business (http/response_json.h).
// Thread-safety: pure functions.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "document/answer.h"
#include "document/document.h"
#include "layout/layout.h"
#include "pipeline/types.h"

namespace ocr::document {

// The page's blocks; laid out from its lines (without rulings) when it carries none, as a page
// built by hand does.
std::vector<layout::Block> PageBlocks(const DocumentPage& page);

// One page in `format` (empty for kJson): FormatText, or FormatMarkdown / FormatHtml over the
// page's blocks (laid out now when the page carries none); hOCR and ALTO of the page alone; the
// page's tables as CSV.
std::string FormatPage(OutputFormat format, const DocumentPage& page);

// The lines' texts in the given order, one per line ("\n"-separated, with a final newline when
// not empty).
std::string FormatText(std::span<const pipeline::TextLine> lines);

// Blocks separated by blank lines (the items of one list on consecutive lines): a paragraph's
// lines joined by single spaces; headings as "#" to "###" by level; list items as "- " or "N. ";
// tables as GitHub-flavoured pipe tables (as HTML where cells span); characters that Markdown
// would interpret escaped with a backslash. The overload without blocks lays the lines out first.
std::string FormatMarkdown(std::span<const pipeline::TextLine> lines,
                           std::span<const layout::Block> blocks);
std::string FormatMarkdown(std::span<const pipeline::TextLine> lines);

// The same structure as semantic HTML: <h1>-<h3>, <p> (rows separated by <br>), <ul>/<ol> of
// <li>, <table> (with <thead> when a header row is evident, rowspan/colspan), text HTML-escaped.
// A fragment, not a whole document.
std::string FormatHtml(std::span<const pipeline::TextLine> lines,
                       std::span<const layout::Block> blocks);
std::string FormatHtml(std::span<const pipeline::TextLine> lines);

// A block's text on one line: its lines (a table's cells, row-major) joined by spaces.
std::string BlockText(std::span<const pipeline::TextLine> lines, const layout::Block& block);

// One block's element as FormatHtml writes it (<p>, <hN>, <li> without its list, <table>), with
// no newline after it: marker's JSON gives each block its html.
std::string BlockHtml(std::span<const pipeline::TextLine> lines, const layout::Block& block);

// The document as text, Markdown or HTML, page after page. With `paginate`, text and Markdown
// are paginated exactly as marker's server does it (spec/API.md: "\n\n{N}" + 48 dashes +
// "\n\n" before each page). HTML is a whole HTML5 document (UTF-8), each page a
// <div class='page' data-page-id='N'> when paginated. hOCR and ALTO are one document of all
// the pages whatever `paginate` says. CSV is every table of the document (RFC 4180, CRLF line
// ends, a blank line between tables; a cell's text at its origin, the positions it spans empty),
// empty when it has none, whatever `paginate` says.
std::string FormatDocument(const DocumentResult& document, OutputFormat format, bool paginate);

}  // namespace ocr::document
