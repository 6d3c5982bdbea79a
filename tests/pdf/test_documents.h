// The end-to-end test documents, shared by the API and CLI tests so that both check one contract:
// a scanned 10-page PDF (rendered text wrapped by img2pdf, no text layer) and a born-digital
// 3-page PDF (enscript + ps2pdf, with a text layer), what is written on each page, and checks of
// a multipart-form answer (the API's, or `onnxocr run`'s JSON) and of every output format.
// Thread-safety: none (tests only).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ocr::pdf::testing {

// A page as written: its paragraphs (a blank line between them), each a list of lines.
using TestPage = std::vector<std::vector<std::string>>;

struct TestDocument {
  std::filesystem::path pdf;  // empty when the tools failed (the failure is already reported)
  std::vector<TestPage> pages;
};

// Ten pages without a text layer, each a title and a two-line paragraph of distinct words in
// DejaVu Sans 14 (pango-view), one image per page. Its texts have no Markdown or HTML specials.
TestDocument MakeScannedDocument(const std::string& name);

// Three A4 pages with a text layer, each a title and a two-line paragraph in Courier 12; page 1
// has '&', '<' and '>' (escaped in Markdown and HTML output).
TestDocument MakeBornDigitalDocument(const std::string& name);

// The `output` expected for `pages` (page numbers, in order) of `doc` in `format` ("text",
// "markdown" or "html"), as spec/API.md and the layout writers lay them out: text one line per
// line; Markdown a paragraph per block, lines joined by a space; HTML a <p> per paragraph, lines
// joined by <br>; pages one after the other, after a separator each when `paginate`.
std::string ExpectedOutput(const TestDocument& doc, std::string_view format,
                           const std::vector<int>& pages, bool paginate);

// One request or run of an end-to-end test: an output format, paginated or not.
struct FormatRun {
  std::string format;  // "json", "markdown", "html" or "text"
  bool paginate = false;
};

// Every format once: json, then markdown and text paginated as `paginate` says and html the
// other way, so that two tests with opposite `paginate` cover each format both ways.
std::vector<FormatRun> EveryFormat(bool paginate);

// Spaces removed: PP-OCRv4 often drops the spaces between English words, so OCR'd text is
// compared without them.
std::string WithoutSpaces(std::string text);

// Checks a multipart-form answer for `pages` of `doc` in `format` (also "json"): success, format,
// page_count, each page's number, `source` ("ocr" or "text_layer"), size and line texts in order,
// `results` as every page's lines, `output` as ExpectedOutput (absent for json). Texts of "ocr"
// pages are compared without spaces; text-layer texts exactly (see ExpectOutput).
void ExpectDocumentAnswer(const nlohmann::json& answer, const TestDocument& doc,
                          std::string_view format, const std::vector<int>& pages, bool paginate,
                          std::string_view source);

// Checks `output` (an answer's, or `onnxocr run`'s stdout) against ExpectedOutput: exactly for
// text-layer pages, without spaces for "ocr" ones.
void ExpectOutput(const std::string& output, const TestDocument& doc, std::string_view format,
                  const std::vector<int>& pages, bool paginate, std::string_view source);

}  // namespace ocr::pdf::testing
