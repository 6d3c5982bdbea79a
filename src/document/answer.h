// How a read document is answered: the output format, marker's pagination, whether the JSON
// lists each line's words, PDF/A. One value, set once from the request (http/ocr_request, the
// flags of `onnxocr run` and `serve`) and carried whole through jobs and their stores, which
// keep it without reading it.
// Thread-safety: a value type and pure functions.
#pragma once

#include <string_view>

#include "common/status.h"

namespace ocr::document {

// kPdf is the searchable PDF (searchable_pdf.h): not text, so FormatDocument writes nothing.
// kCsv is the document's tables alone (render.h).
enum class OutputFormat { kJson, kText, kMarkdown, kHtml, kHocr, kAlto, kPdf, kCsv };

// Accepts "json", "text", "markdown", "html", "hocr", "alto", "pdf", "csv" (case-insensitive);
// kInvalidArgument otherwise, with a message that lists the accepted values.
Result<OutputFormat> ParseOutputFormat(std::string_view name);

std::string_view OutputFormatName(OutputFormat format);

// Whether `format` places each word (hOCR, ALTO, PDF): its pages are read with their words
// whatever the request says of listing them.
bool NeedsWordBoxes(OutputFormat format);

struct AnswerShape {
  OutputFormat format = OutputFormat::kJson;
  bool paginate = false;    // page separators in text, Markdown and HTML (paginate_output)
  bool list_words = false;  // the JSON lists each line's words (return_word_boxes)
  bool pdfa = false;        // the searchable PDF is PDF/A-2b (pdfa)
};

}  // namespace ocr::document
