// The two forms of an OCR request (spec/API.md section 3), each parsed once into one plain
// OcrCall that the Api runs the same way: the JSON form ({"image": base64, options}, POST /ocr
// and /ocr_api) and the multipart form (marker's fields, POST /ocr). The reading options and
// their rules are document/request_options.h's table; the fields that shape the answer are
// here. No models and no I/O: unit-tested and fuzzed on their own.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "document/answer.h"
#include "document/document.h"
#include "document/render.h"
#include "http/marker_api.h"

namespace ocr::http {

// All a worker needs to answer an OCR request: no JSON, no multipart.
struct OcrCall {
  std::string body;        // owns the upload (the request body, or the JSON form's base64 text)
  std::size_t offset = 0;  // the file inside `body`
  std::size_t size = 0;
  bool base64 = false;  // the file is base64 text or a data: URI (the JSON form)
  std::string model;    // model set name; "" = the default
  // What to read and how; options.limits are the Api's, set when it runs the call.
  document::DocumentOptions options;
  // How the answer is shaped. Words may be read without being listed (answer.list_words): the
  // archive formats place every word.
  document::AnswerShape answer;
  // The JSON form: one page's lines ({"processing_time", "results"}), whatever answer.format.
  bool json_form = false;
  bool stream = false;  // the multipart form's stream=true: NDJSON page by page
  // Set for marker's POST /marker/upload: the answer is marker's, in this format.
  std::optional<MarkerFormat> marker_format;

  // The uploaded file's name as the client gave it: client text, only ever echoed sanitized
  // (the searchable PDF's download name).
  std::string file_name;

  std::string_view file() const { return std::string_view(body).substr(offset, size); }
};

// A request the client got wrong: 400 with this API error code ("invalid_json",
// "missing_field", "invalid_option", "invalid_multipart") and message.
struct BadRequest {
  std::string code;
  std::string message;
};

using ParsedCall = std::variant<OcrCall, BadRequest>;

// {"image": "<base64 or data: URI>", "model", and the options of the table marked kJsonForm
// ("cls", "return_word_boxes", "drop_score", ...)}: booleans must be JSON booleans, numbers
// numbers, choices strings; null is the same as absent. Options absent from the request keep
// `defaults` (the server's flags). The JSON form reads one page (a TIFF's first frame) and
// answers its lines only (no layout). `body` is consumed.
ParsedCall ParseJsonForm(std::string body, const document::DocumentOptions& defaults = {});

// multipart/form-data with "file" (required, once), the text fields output_format,
// paginate_output, stream (booleans: document::ParseBoolText), model, and the options of the
// table marked kMultipartForm; other fields are ignored, as HTML forms send whatever inputs they
// have. Absent options keep `defaults`, absent answer fields (paginate_output, pdfa) `answer`.
// `body` is consumed; the file stays inside the call's body, found by offset.
// Whose multipart form: ours (POST /ocr and /jobs) or marker's (POST /marker/upload: marker's
// output formats, markdown by default; no stream).
enum class FormDialect { kOcr, kMarker };

ParsedCall ParseMultipartForm(std::string body, std::string_view content_type,
                              const document::DocumentOptions& defaults = {},
                              FormDialect dialect = FormDialect::kOcr,
                              const document::AnswerShape& answer = {});

}  // namespace ocr::http
