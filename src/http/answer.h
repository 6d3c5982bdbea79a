// The one place a read document becomes an answer, in the shape its request asked for
// (document::AnswerShape): the synchronous route, a job's result, a stream's last line and
// `onnxocr run` all write through here, so they answer alike. The searchable PDF is sent as
// application/pdf with Content-Disposition: attachment and a download name made from the
// upload's (client text: only letters, digits, '-', '_' and '.' are kept; never a path); every
// other format is the JSON of spec/API.md section 3.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "document/answer.h"
#include "document/document.h"
#include "http/reply.h"

namespace ocr::http {

// What a searchable PDF is made from: the document's own bytes, read with `options`, and the
// name the client gave the upload ("" for none).
struct PdfSource {
  std::span<const std::uint8_t> bytes;
  const document::DocumentOptions* options = nullptr;
  std::string_view upload_name;
};

// The answer's JSON. `one_page`: the JSON form's answer, one page's lines
// ({"processing_time", "results"}); else the multipart form's ({"success", "format", "output"
// (not for json), "page_count", "processing_time", "pages", "results": every page's lines}).
nlohmann::json AnswerJson(const document::DocumentResult& document,
                          const document::AnswerShape& shape, double seconds, bool one_page);

// The reply: the searchable PDF of `document` made from `pdf` for output_format=pdf (the failure
// to write it as a Status), else AnswerJson's. `reply.lines` counts the document's lines.
Result<Reply> AnswerReply(const document::DocumentResult& document,
                          const document::AnswerShape& shape, double seconds, bool one_page,
                          const PdfSource& pdf);

// A stream's last line: the multipart form's answer without its pages, which went before it one
// line each.
std::string AnswerSummaryLine(const document::DocumentResult& document,
                              const document::AnswerShape& shape, double seconds);

// "scan 2026.PNG" -> "scan2026.pdf"; "" or nothing usable -> "document.pdf".
std::string PdfDownloadName(std::string_view upload_name);

}  // namespace ocr::http
