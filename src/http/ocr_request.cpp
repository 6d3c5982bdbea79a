#include "http/ocr_request.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/text.h"
#include "document/request_options.h"
#include "http/multipart.h"

namespace ocr::http {
namespace {

using Json = nlohmann::json;

BadRequest Invalid(std::string message) {
  return {"invalid_option", std::move(message)};
}

// The answer's own booleans, beside the reading options of the table.
struct BoolField {
  std::string_view name;
  void (*set)(OcrCall& call, bool value);
};

constexpr std::array<BoolField, 3> kAnswerFields = {{
    {"paginate_output", [](OcrCall& c, bool v) { c.answer.paginate = v; }},
    {"pdfa", [](OcrCall& c, bool v) { c.answer.pdfa = v; }},
    {"stream", [](OcrCall& c, bool v) { c.stream = v; }},
}};

// A JSON value of the option's kind; a BadRequest naming the rule when it is of another type.
Result<document::OptionValue> JsonOption(const document::RequestOption& option, const Json& v) {
  switch (option.kind) {
    case document::OptionKind::kBool:
      if (v.is_boolean())
        return document::OptionValue(v.get<bool>());
      return InvalidArgument("\"" + std::string(option.name) + "\" must be true or false");
    case document::OptionKind::kNumber:
      if (v.is_number())
        return document::OptionValue(v.get<double>());
      break;
    case document::OptionKind::kWholeNumber:
      if (v.is_number_unsigned())
        return document::OptionValue(
            static_cast<std::int64_t>(std::min<std::uint64_t>(v.get<std::uint64_t>(), INT64_MAX)));
      if (v.is_number_integer())
        return document::OptionValue(v.get<std::int64_t>());
      break;
    case document::OptionKind::kChoice:
    case document::OptionKind::kText:
      if (v.is_string())
        return document::OptionValue(v.get<std::string>());
      break;
  }
  return InvalidArgument(document::OptionRule(option));
}

// The JSON form's options; a BadRequest when one has the wrong type or value.
std::optional<BadRequest> ReadJsonOptions(const Json& body, OcrCall& call) {
  for (const document::RequestOption& option : document::RequestOptions()) {
    if ((option.where & document::kJsonForm) == 0)
      continue;
    const auto it = body.find(option.name);
    if (it == body.end() || it->is_null())
      continue;
    Result<document::OptionValue> value = JsonOption(option, *it);
    if (!value.ok())
      return Invalid(value.status().message());
    if (Status set = document::SetOption(option, *value, call.options); !set.ok())
      return Invalid(set.message());
  }
  return std::nullopt;
}

// marker's output_format: its document writer, and marker's shape around it.
std::optional<BadRequest> SetMarkerFormat(std::string_view value, OcrCall& call) {
  const Result<MarkerFormat> format = ParseMarkerFormat(value);
  if (!format.ok())
    return Invalid(format.status().message());
  call.marker_format = *format;
  call.answer.format = *format == MarkerFormat::kHtml       ? document::OutputFormat::kHtml
                       : *format == MarkerFormat::kMarkdown ? document::OutputFormat::kMarkdown
                                                            : document::OutputFormat::kJson;
  return std::nullopt;
}

// One text field of the multipart form.
std::optional<BadRequest> ReadFormField(std::string_view name, std::string_view value,
                                        FormDialect dialect, OcrCall& call) {
  if (dialect == FormDialect::kMarker && name == "stream")
    return std::nullopt;  // marker's server has no streams
  if (dialect == FormDialect::kMarker && name == "output_format")
    return SetMarkerFormat(value, call);
  if (dialect == FormDialect::kMarker && name == "use_llm") {
    // A boolean to marker, checked as marker checks it; there is no LLM here to use.
    if (const Result<bool> b = document::ParseBoolText(name, value); !b.ok())
      return Invalid(b.status().message());
    return std::nullopt;
  }
  if (const document::RequestOption* option = document::FindRequestOption(name);
      option != nullptr && (option->where & document::kMultipartForm) != 0) {
    const Result<document::OptionValue> parsed = document::ParseOptionText(*option, value);
    if (!parsed.ok())
      return Invalid(parsed.status().message());
    option->set(call.options, *parsed);
    return std::nullopt;
  }
  for (const BoolField& field : kAnswerFields) {
    if (field.name == name) {
      const Result<bool> b = document::ParseBoolText(name, value);
      if (!b.ok())
        return Invalid(b.status().message());
      field.set(call, *b);
      return std::nullopt;
    }
  }
  if (name == "output_format") {
    const Result<document::OutputFormat> format = document::ParseOutputFormat(value);
    if (!format.ok())
      return Invalid(format.status().message());
    call.answer.format = *format;
  } else if (name == "model") {
    call.model = std::string(value);
  }
  // Unknown fields are ignored, as HTML forms send whatever inputs they have.
  return std::nullopt;
}

}  // namespace

ParsedCall ParseJsonForm(std::string text, const document::DocumentOptions& defaults) {
  Json body = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  text = std::string();
  if (body.is_discarded())
    return BadRequest{"invalid_json", "request body is not valid JSON"};
  if (!body.is_object())
    return BadRequest{"invalid_json", "request body must be a JSON object"};
  const auto image = body.find("image");
  if (image == body.end() || image->is_null()) {
    return BadRequest{"missing_field",
                      "field \"image\" is required: a base64 string or a data: URI"};
  }
  if (!image->is_string())
    return Invalid("\"image\" must be a string (base64 or data: URI)");
  OcrCall call;
  call.options = defaults;
  call.options.layout = false;  // the answer is the lines
  call.json_form = true;
  if (const auto m = body.find("model"); m != body.end() && !m->is_null()) {
    if (!m->is_string())
      return Invalid("\"model\" must be a string");
    call.model = m->get<std::string>();
  }
  if (std::optional<BadRequest> bad = ReadJsonOptions(body, call))
    return *std::move(bad);
  call.body = std::move(image->get_ref<std::string&>());
  call.size = call.body.size();
  call.base64 = true;
  call.options.page_range = "0";  // the JSON form answers one page: a TIFF's first frame
  call.answer.list_words = call.options.ocr.read_words;
  return call;
}

ParsedCall ParseMultipartForm(std::string body, std::string_view content_type,
                              const document::DocumentOptions& defaults, FormDialect dialect,
                              const document::AnswerShape& answer) {
  const Result<std::string> boundary = MultipartBoundary(content_type);
  if (!boundary.ok())
    return BadRequest{"invalid_multipart", boundary.status().message()};
  const Result<std::vector<MultipartPart>> parts = ParseMultipart(body, *boundary);
  if (!parts.ok())
    return BadRequest{"invalid_multipart", parts.status().message()};
  OcrCall call;
  call.options = defaults;
  call.answer = answer;
  const MultipartPart* file = nullptr;
  for (const MultipartPart& part : *parts) {
    if (part.name == "file") {
      if (file != nullptr)
        return Invalid("send one file per request");
      file = &part;
    } else if (std::optional<BadRequest> bad = ReadFormField(part.name, part.body, dialect, call)) {
      return *std::move(bad);
    }
  }
  if (file == nullptr)
    return BadRequest{"missing_field", "form field \"file\" is required: the image or PDF to read"};
  if (dialect == FormDialect::kMarker && !call.marker_format)
    SetMarkerFormat("markdown", call);  // marker's default
  if (call.stream && call.answer.format == document::OutputFormat::kPdf) {
    return Invalid(
        "output_format=pdf cannot be streamed: create a job (POST /jobs) and fetch its "
        "result_url, or send the request without stream");
  }
  call.answer.list_words = call.options.ocr.read_words;
  if (document::NeedsWordBoxes(call.answer.format))
    call.options.ocr.read_words = true;
  call.file_name = file->filename;
  // The call owns the body; the file part is found again by its offset after the move.
  call.offset = static_cast<std::size_t>(file->body.data() - body.data());
  call.size = file->body.size();
  call.body = std::move(body);
  return call;
}

}  // namespace ocr::http
