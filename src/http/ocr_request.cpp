#include "http/ocr_request.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/text.h"
#include "http/multipart.h"

namespace ocr::http {
namespace {

using Json = nlohmann::json;

BadRequest Invalid(std::string message) {
  return {"invalid_option", std::move(message)};
}

// The boolean options both forms take, each with where it lands in the call.
struct BoolField {
  std::string_view name;
  void (*set)(OcrCall& call, bool value);
};

constexpr std::array<BoolField, 6> kBoolFields = {{
    {"cls", [](OcrCall& c, bool v) { c.options.ocr.use_cls = v; }},
    {"text_normalization", [](OcrCall& c, bool v) { c.options.ocr.text_normalization = v; }},
    {"return_word_boxes", [](OcrCall& c, bool v) { c.options.ocr.word_boxes = v; }},
    {"force_ocr", [](OcrCall& c, bool v) { c.options.force_ocr = v; }},
    {"paginate_output", [](OcrCall& c, bool v) { c.paginate = v; }},
    {"stream", [](OcrCall& c, bool v) { c.stream = v; }},
}};

const BoolField* FindBoolField(std::string_view name) {
  for (const BoolField& field : kBoolFields) {
    if (field.name == name)
      return &field;
  }
  return nullptr;
}

constexpr std::string_view kDropScoreRule = "drop_score must be a number from 0 to 1";

// drop_score, the one numeric option: the same rule whichever form carried it.
std::optional<BadRequest> SetDropScore(OcrCall& call, double value) {
  if (!(value >= 0.0 && value <= 1.0))
    return Invalid(std::string(kDropScoreRule));
  call.options.ocr.drop_score = static_cast<float>(value);
  return std::nullopt;
}

const std::string kDetLimitSideLenRule = "det_limit_side_len must be a whole number from " +
                                         std::to_string(pipeline::kMinDetLimitSideLen) + " to " +
                                         std::to_string(pipeline::kMaxDetSide);
constexpr std::string_view kDetLimitTypeRule = "det_limit_type must be max, min or auto";

std::optional<BadRequest> SetDetLimitSideLen(OcrCall& call, std::int64_t value) {
  if (value < pipeline::kMinDetLimitSideLen || value > pipeline::kMaxDetSide)
    return Invalid(kDetLimitSideLenRule);
  call.options.ocr.det.limit_side_len = static_cast<int>(value);
  return std::nullopt;
}

std::optional<BadRequest> SetDetLimitType(OcrCall& call, std::string_view value) {
  const std::optional<pipeline::LimitType> type = pipeline::ParseLimitType(value);
  if (!type)
    return Invalid(std::string(kDetLimitTypeRule));
  call.options.ocr.det.limit_type = *type;
  return std::nullopt;
}

// The JSON form's options; kInvalidArgument-like BadRequest when one has the wrong type.
std::optional<BadRequest> ReadJsonOptions(const Json& body, OcrCall& call) {
  if (const auto n = body.find("det_limit_side_len"); n != body.end() && !n->is_null()) {
    if (!n->is_number_integer())
      return Invalid(kDetLimitSideLenRule);
    if (std::optional<BadRequest> bad = SetDetLimitSideLen(
            call, n->is_number_unsigned() ? static_cast<std::int64_t>(std::min<std::uint64_t>(
                                                n->get<std::uint64_t>(), INT64_MAX))
                                          : n->get<std::int64_t>())) {
      return bad;
    }
  }
  if (const auto t = body.find("det_limit_type"); t != body.end() && !t->is_null()) {
    if (!t->is_string())
      return Invalid(std::string(kDetLimitTypeRule));
    if (std::optional<BadRequest> bad = SetDetLimitType(call, t->get_ref<const std::string&>()))
      return bad;
  }
  for (const std::string_view name : {"cls", "return_word_boxes", "text_normalization"}) {
    const auto it = body.find(name);
    if (it == body.end() || it->is_null())
      continue;
    if (!it->is_boolean())
      return Invalid("\"" + std::string(name) + "\" must be true or false");
    FindBoolField(name)->set(call, it->get<bool>());
  }
  if (const auto ds = body.find("drop_score"); ds != body.end() && !ds->is_null()) {
    if (!ds->is_number())
      return Invalid(std::string(kDropScoreRule));
    return SetDropScore(call, ds->get<double>());
  }
  return std::nullopt;
}

// marker's output_format: its document writer, and marker's shape around it.
std::optional<BadRequest> SetMarkerFormat(std::string_view value, OcrCall& call) {
  const Result<MarkerFormat> format = ParseMarkerFormat(value);
  if (!format.ok())
    return Invalid(format.status().message());
  call.marker_format = *format;
  call.document_format = *format == MarkerFormat::kHtml       ? document::OutputFormat::kHtml
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
    if (const Result<bool> b = ParseFormBool(name, value); !b.ok())
      return Invalid(b.status().message());
    return std::nullopt;
  }
  if (const BoolField* field = FindBoolField(name)) {
    const Result<bool> b = ParseFormBool(name, value);
    if (!b.ok())
      return Invalid(b.status().message());
    field->set(call, *b);
  } else if (name == "output_format") {
    const Result<document::OutputFormat> format = document::ParseOutputFormat(value);
    if (!format.ok())
      return Invalid(format.status().message());
    call.document_format = *format;
  } else if (name == "drop_score") {
    float v = -1;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size())
      return Invalid(std::string(kDropScoreRule));
    return SetDropScore(call, v);
  } else if (name == "det_limit_side_len") {
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size())
      return Invalid(kDetLimitSideLenRule);
    return SetDetLimitSideLen(call, v);
  } else if (name == "det_limit_type") {
    return SetDetLimitType(call, value);
  } else if (name == "model") {
    call.model = std::string(value);
  } else if (name == "page_range") {
    call.options.page_range = std::string(value);
  }
  // Unknown fields are ignored, as HTML forms send whatever inputs they have.
  return std::nullopt;
}

}  // namespace

Result<bool> ParseFormBool(std::string_view field, std::string_view value) {
  // The spellings marker's server takes (pydantic's booleans); an HTML checkbox sends "on".
  const std::string v = AsciiLower(value);
  for (const std::string_view yes : {"true", "1", "yes", "on", "t", "y"}) {
    if (v == yes)
      return true;
  }
  for (const std::string_view no : {"false", "0", "no", "off", "f", "n"}) {
    if (v == no)
      return false;
  }
  return InvalidArgument(std::string(field) +
                         " must be a boolean: true/false, 1/0, yes/no, on/off, t/f or y/n");
}

ParsedCall ParseJsonForm(std::string text, const pipeline::OcrOptions& defaults) {
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
  call.options.ocr = defaults;
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
  return call;
}

ParsedCall ParseMultipartForm(std::string body, std::string_view content_type,
                              const pipeline::OcrOptions& defaults, FormDialect dialect) {
  const Result<std::string> boundary = MultipartBoundary(content_type);
  if (!boundary.ok())
    return BadRequest{"invalid_multipart", boundary.status().message()};
  const Result<std::vector<MultipartPart>> parts = ParseMultipart(body, *boundary);
  if (!parts.ok())
    return BadRequest{"invalid_multipart", parts.status().message()};
  OcrCall call;
  call.options.ocr = defaults;
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
  if (!call.document_format)
    call.document_format = document::OutputFormat::kJson;
  // The call owns the body; the file part is found again by its offset after the move.
  call.offset = static_cast<std::size_t>(file->body.data() - body.data());
  call.size = file->body.size();
  call.body = std::move(body);
  return call;
}

}  // namespace ocr::http
