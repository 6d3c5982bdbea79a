// The two forms of an OCR request parsed into one OcrCall, without a server or models: the
// option rules both share, and each form's own errors with their API codes.
#include "http/ocr_request.h"

#include <string>
#include <variant>

#include <gtest/gtest.h>

namespace ocr::http {
namespace {

constexpr std::string_view kFormBoundary = "XyZ";
const std::string kFormType = "multipart/form-data; boundary=XyZ";

std::string Field(std::string_view name, std::string_view value) {
  return "--" + std::string(kFormBoundary) + "\r\nContent-Disposition: form-data; name=\"" +
         std::string(name) + "\"\r\n\r\n" + std::string(value) + "\r\n";
}

std::string File(std::string_view bytes) {
  return "--" + std::string(kFormBoundary) +
         "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\n"
         "Content-Type: image/png\r\n\r\n" +
         std::string(bytes) + "\r\n";
}

std::string End() {
  return "--" + std::string(kFormBoundary) + "--\r\n";
}

BadRequest ErrorOf(const ParsedCall& parsed) {
  if (const BadRequest* bad = std::get_if<BadRequest>(&parsed))
    return *bad;
  ADD_FAILURE() << "parsed without an error";
  return {};
}

TEST(OcrRequestTest, JsonFormCarriesTheImageAndItsOptions) {
  const ParsedCall parsed = ParseJsonForm(
      R"({"image": "aGk=", "model": "v4", "cls": false, "return_word_boxes": true,
          "drop_score": 0.25})");
  ASSERT_TRUE(std::holds_alternative<OcrCall>(parsed));
  const OcrCall& call = std::get<OcrCall>(parsed);
  EXPECT_EQ(call.file(), "aGk=");
  EXPECT_TRUE(call.base64);
  EXPECT_EQ(call.model, "v4");
  EXPECT_FALSE(call.options.ocr.use_cls);
  EXPECT_TRUE(call.options.ocr.read_words);
  EXPECT_FLOAT_EQ(call.options.ocr.drop_score, 0.25F);
  EXPECT_EQ(call.options.page_range, "0");  // one page: a TIFF's first frame
  EXPECT_TRUE(call.json_form);
}

TEST(OcrRequestTest, JsonFormErrorsHaveTheirCodes) {
  EXPECT_EQ(ErrorOf(ParseJsonForm("{\"image\": ")).code, "invalid_json");
  EXPECT_EQ(ErrorOf(ParseJsonForm("[1]")).code, "invalid_json");
  EXPECT_EQ(ErrorOf(ParseJsonForm(R"({"cls": true})")).code, "missing_field");
  EXPECT_EQ(ErrorOf(ParseJsonForm(R"({"image": 5})")).code, "invalid_option");
  EXPECT_EQ(ErrorOf(ParseJsonForm(R"({"image": "aGk=", "model": 1})")).code, "invalid_option");
  const BadRequest cls = ErrorOf(ParseJsonForm(R"({"image": "aGk=", "cls": "yes"})"));
  EXPECT_EQ(cls.code, "invalid_option");
  EXPECT_EQ(cls.message, "\"cls\" must be true or false");
}

TEST(OcrRequestTest, DropScoreHasOneRuleInBothForms) {
  const std::string rule = "drop_score must be a number from 0 to 1";
  EXPECT_EQ(ErrorOf(ParseJsonForm(R"({"image": "aGk=", "drop_score": 7})")).message, rule);
  EXPECT_EQ(ErrorOf(ParseJsonForm(R"({"image": "aGk=", "drop_score": "0.5"})")).message, rule);
  EXPECT_EQ(
      ErrorOf(ParseMultipartForm(File("x") + Field("drop_score", "7") + End(), kFormType)).message,
      rule);
  EXPECT_EQ(ErrorOf(ParseMultipartForm(File("x") + Field("drop_score", "high") + End(), kFormType))
                .message,
            rule);
}

TEST(OcrRequestTest, ReadingOptionsStartFromTheServersDefaultsAndTakeTheRequests) {
  document::DocumentOptions defaults;
  defaults.ocr.det.limit_side_len = 1280;
  defaults.ocr.det.limit_type = pipeline::LimitType::kMin;
  defaults.ocr.text_normalization = false;
  const OcrCall kept = std::get<OcrCall>(ParseJsonForm(R"({"image": "aGk="})", defaults));
  EXPECT_EQ(kept.options.ocr.det.limit_side_len, 1280);
  EXPECT_EQ(kept.options.ocr.det.limit_type, pipeline::LimitType::kMin);
  EXPECT_FALSE(kept.options.ocr.text_normalization);

  const OcrCall json = std::get<OcrCall>(
      ParseJsonForm(R"({"image": "aGk=", "det_limit_side_len": 2000, "det_limit_type": "auto",
                        "text_normalization": true})",
                    defaults));
  EXPECT_EQ(json.options.ocr.det.limit_side_len, 2000);
  EXPECT_EQ(json.options.ocr.det.limit_type, pipeline::LimitType::kAuto);
  EXPECT_TRUE(json.options.ocr.text_normalization);

  const OcrCall form = std::get<OcrCall>(
      ParseMultipartForm(Field("det_limit_side_len", "736") + Field("det_limit_type", "max") +
                             Field("text_normalization", "on") + File("x") + End(),
                         kFormType, defaults));
  EXPECT_EQ(form.options.ocr.det.limit_side_len, 736);
  EXPECT_EQ(form.options.ocr.det.limit_type, pipeline::LimitType::kMax);
  EXPECT_TRUE(form.options.ocr.text_normalization);
}

TEST(OcrRequestTest, DetectionLimitsHaveOneRuleInBothForms) {
  const std::string side = "det_limit_side_len must be a whole number from 32 to 4000";
  const std::string type = "det_limit_type must be max, min or auto";
  for (const char* bad : {"31", "4001", "1e3", "\"960\"", "960.5", "-1", "18446744073709551615"}) {
    const BadRequest e = ErrorOf(
        ParseJsonForm(std::string(R"({"image": "aGk=", "det_limit_side_len": )") + bad + "}"));
    EXPECT_EQ(e.code, "invalid_option") << bad;
    EXPECT_EQ(e.message, side) << bad;
  }
  for (const char* bad : {"31", "4001", "960px", "", "-5"}) {
    EXPECT_EQ(
        ErrorOf(ParseMultipartForm(File("x") + Field("det_limit_side_len", bad) + End(), kFormType))
            .message,
        side)
        << bad;
  }
  EXPECT_EQ(ErrorOf(ParseJsonForm(R"({"image": "aGk=", "det_limit_type": "tile"})")).message, type);
  EXPECT_EQ(ErrorOf(ParseJsonForm(R"({"image": "aGk=", "det_limit_type": 1})")).message, type);
  EXPECT_EQ(
      ErrorOf(ParseMultipartForm(File("x") + Field("det_limit_type", "MAX") + End(), kFormType))
          .message,
      type);
  EXPECT_EQ(ErrorOf(ParseJsonForm(R"({"image": "aGk=", "text_normalization": "off"})")).message,
            "\"text_normalization\" must be true or false");
}

TEST(OcrRequestTest, MultipartFormCarriesTheFileByOffsetAndEveryField) {
  const ParsedCall parsed = ParseMultipartForm(
      Field("output_format", "Markdown") + Field("paginate_output", "yes") +
          Field("force_ocr", "1") + Field("cls", "no") + Field("return_word_boxes", "TRUE") +
          Field("drop_score", "0.75") + Field("model", "v5") + Field("page_range", "0-2") +
          Field("pdfa", "on") + Field("unknown", "ignored") + File("\x89PNG bytes") + End(),
      kFormType);
  ASSERT_TRUE(std::holds_alternative<OcrCall>(parsed));
  const OcrCall& call = std::get<OcrCall>(parsed);
  EXPECT_EQ(call.file(), "\x89PNG bytes");
  EXPECT_FALSE(call.base64);
  EXPECT_EQ(call.answer.format, document::OutputFormat::kMarkdown);
  EXPECT_TRUE(call.answer.paginate);
  EXPECT_TRUE(call.answer.list_words);
  EXPECT_TRUE(call.answer.pdfa);
  EXPECT_FALSE(call.json_form);
  EXPECT_TRUE(call.options.force_ocr);
  EXPECT_FALSE(call.options.ocr.use_cls);
  EXPECT_TRUE(call.options.ocr.read_words);
  EXPECT_FLOAT_EQ(call.options.ocr.drop_score, 0.75F);
  EXPECT_EQ(call.model, "v5");
  EXPECT_EQ(call.options.page_range, "0-2");
}

TEST(OcrRequestTest, MultipartFormDefaultsToJsonPages) {
  const ParsedCall parsed = ParseMultipartForm(File("x") + End(), kFormType);
  ASSERT_TRUE(std::holds_alternative<OcrCall>(parsed));
  EXPECT_EQ(std::get<OcrCall>(parsed).answer.format, document::OutputFormat::kJson);
}

// serve --pdfa is every request's default; a request's own pdfa field overrides it.
TEST(OcrRequestTest, MultipartFormKeepsTheServersAnswerDefaults) {
  document::AnswerShape server;
  server.pdfa = true;
  const ParsedCall kept =
      ParseMultipartForm(File("x") + End(), kFormType, {}, FormDialect::kOcr, server);
  ASSERT_TRUE(std::holds_alternative<OcrCall>(kept));
  EXPECT_TRUE(std::get<OcrCall>(kept).answer.pdfa);
  const ParsedCall overridden = ParseMultipartForm(File("x") + Field("pdfa", "false") + End(),
                                                   kFormType, {}, FormDialect::kOcr, server);
  ASSERT_TRUE(std::holds_alternative<OcrCall>(overridden));
  EXPECT_FALSE(std::get<OcrCall>(overridden).answer.pdfa);
  EXPECT_EQ(ErrorOf(ParseMultipartForm(File("x") + Field("pdfa", "maybe") + End(), kFormType)).code,
            "invalid_option");
}

TEST(OcrRequestTest, MultipartFormErrorsHaveTheirCodes) {
  EXPECT_EQ(ErrorOf(ParseMultipartForm(File("x") + End(), "multipart/form-data")).code,
            "invalid_multipart");
  EXPECT_EQ(ErrorOf(ParseMultipartForm("garbage", kFormType)).code, "invalid_multipart");
  EXPECT_EQ(ErrorOf(ParseMultipartForm(Field("cls", "no") + End(), kFormType)).code,
            "missing_field");
  const BadRequest two = ErrorOf(ParseMultipartForm(File("a") + File("b") + End(), kFormType));
  EXPECT_EQ(two.code, "invalid_option");
  EXPECT_EQ(two.message, "send one file per request");
  const BadRequest flag =
      ErrorOf(ParseMultipartForm(File("x") + Field("force_ocr", "maybe") + End(), kFormType));
  EXPECT_EQ(flag.code, "invalid_option");
  EXPECT_EQ(flag.message,
            "force_ocr must be a boolean: true/false, 1/0, yes/no, on/off, t/f or y/n");
  const BadRequest format =
      ErrorOf(ParseMultipartForm(File("x") + Field("output_format", "docx") + End(), kFormType));
  EXPECT_EQ(format.code, "invalid_option");
  EXPECT_EQ(
      format.message,
      "output_format must be one of json, markdown, html, text, hocr, alto, pdf, csv (got 'docx')");
}

}  // namespace
}  // namespace ocr::http
