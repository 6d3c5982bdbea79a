// POST /render: an answer the client already holds (the JSON of POST /ocr, either form, or of a
// job's result) written again in another format, without reading the document again: how the
// Web UI switches a single image's format. The answer is read back into a document: its pages'
// lines and blocks as the server wrote them, each block's rows found again from its lines' boxes
// (layout::RowsInReadingOrder); a page without blocks (the JSON form's answer) is laid out anew,
// as POST /ocr lays out its lines. Formats that place each word (hOCR, ALTO, the PDF) need the
// page itself and are refused, as is JSON, which the answer already is. No models and no I/O:
// unit-tested and fuzzed on their own. Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string_view>
#include <variant>

#include "document/answer.h"
#include "document/document.h"
#include "http/ocr_request.h"

namespace ocr::http {

// Grid positions of all the tables of one request, which the writers lay out cell by cell: a
// bound on the work of a small body that declares large empty tables (a 200-page document of
// dense tables has about 200,000).
inline constexpr std::size_t kMaxRenderedTableCells = 1'000'000;

struct RenderCall {
  document::DocumentResult document;
  document::AnswerShape shape;  // format and pagination; words are never listed
};

using ParsedRender = std::variant<RenderCall, BadRequest>;

// {"answer": {...}, "output_format": "text" | "markdown" | "html" | "csv", "paginate_output":
// false}. The answer has "pages" ([{"page", "width", "height", "source",
// "results", "blocks"}]) or, the JSON form's, "results" alone (one page). A line needs "text"
// and "bounding_box" ([[x, y] x4], finite); "confidence" is kept when present. A block's "lines"
// are indices into its page's results, each line in at most one block (a table's: in its cells)
// of its page; a table's cells lie within its "rows" x "columns" (at most
// layout::kMaxTableCells), one cell per grid position. Other members are ignored, as in every
// JSON body of the API. Errors: invalid_json (not a JSON object), missing_field ("answer",
// "output_format"), invalid_option (any other rule, the message naming the member, such as
// "answer.pages[0].blocks[2].lines[1]").
ParsedRender ParseRenderRequest(std::string_view body);

}  // namespace ocr::http
