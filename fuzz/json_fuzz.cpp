// Fuzz target for the JSON form of POST /ocr through the public Api::Route: the body parser and
// the option validation of spec/API.md section 3. Each input is the request body. The outcome is
// checked against a reference reading of the spec (ExpectedError): a malformed body is answered
// at once with the right error code, and only a valid request becomes work.
// The work is not run here: it is base64 and image decoding (their own targets) and OCR
// (http_fuzz runs it end to end), and skipping it keeps this target at parser speed.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "api_support.h"
#include "fuzz_support.h"

namespace {

using Json = nlohmann::json;

bool IsBoolOrNull(const Json& body, const char* key) {
  const auto it = body.find(key);
  return it == body.end() || it->is_null() || it->is_boolean();
}

// The API error code the spec gives `body`, or "" when the request is valid.
std::string ExpectedError(std::string_view text) {
  const Json body = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object())
    return "invalid_json";
  const auto image = body.find("image");
  if (image == body.end() || image->is_null())
    return "missing_field";
  if (!image->is_string())
    return "invalid_option";
  if (const auto model = body.find("model"); model != body.end() && !model->is_null()) {
    if (!model->is_string())
      return "invalid_option";
    const std::string& name = model->get_ref<const std::string&>();
    if (!name.empty() && name != "ppocrv4")
      return "invalid_option";
  }
  if (const auto n = body.find("det_limit_side_len"); n != body.end() && !n->is_null()) {
    if (!n->is_number_integer())
      return "invalid_option";
    const bool in_range = n->is_number_unsigned()
                              ? n->get<std::uint64_t>() >= 32 && n->get<std::uint64_t>() <= 4000
                              : n->get<std::int64_t>() >= 32 && n->get<std::int64_t>() <= 4000;
    if (!in_range)
      return "invalid_option";
  }
  if (const auto t = body.find("det_limit_type"); t != body.end() && !t->is_null()) {
    if (!t->is_string())
      return "invalid_option";
    const std::string& type = t->get_ref<const std::string&>();
    if (type != "max" && type != "min" && type != "auto")
      return "invalid_option";
  }
  if (!IsBoolOrNull(body, "cls") || !IsBoolOrNull(body, "return_word_boxes") ||
      !IsBoolOrNull(body, "text_normalization"))
    return "invalid_option";
  if (const auto ds = body.find("drop_score"); ds != body.end() && !ds->is_null()) {
    if (!ds->is_number())
      return "invalid_option";
    const double v = ds->get<double>();
    if (!(v >= 0.0 && v <= 1.0))
      return "invalid_option";
  }
  return "";
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  (void)ocr::fuzz::SharedApi();  // load the models before the first input is timed
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body = ocr::fuzz::AsText(data, size);
  ocr::http::ApiRequest request;
  request.method = "POST";
  request.path = "/ocr";
  request.content_type = "application/json";
  request.body = std::string(body);
  const ocr::http::Routed routed = ocr::fuzz::SharedApi().api.Route(request);
  OCR_FUZZ_CHECK(routed.route == "/ocr");

  const std::string expected = ExpectedError(body);
  if (expected.empty()) {
    OCR_FUZZ_CHECK(!routed.reply.has_value());
    OCR_FUZZ_CHECK(static_cast<bool>(routed.work));
    return 0;
  }
  OCR_FUZZ_CHECK(routed.reply.has_value());
  ocr::fuzz::CheckReply(*routed.reply);
  OCR_FUZZ_CHECK(routed.reply->status == 400);
  const Json reply = Json::parse(routed.reply->body);
  OCR_FUZZ_CHECK(reply["code"] == expected);
  return 0;
}
