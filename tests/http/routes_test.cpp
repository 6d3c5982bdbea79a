// The routes beyond the JSON form, against the real server: multipart uploads and output formats,
// /metrics, /info, /openapi.json, /docs, the Web UI's files, CORS, the request deadline and the
// connection limit.
#include <algorithm>
#include <chrono>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "http/server_client.h"
#include "image/test_images.h"
#include "pdf/test_documents.h"
#include "pdf/test_pdfs.h"
#include "support/render_text.h"
#include "support/test_paths.h"

namespace ocr::http {
namespace {

using namespace testing_support;  // NOLINT(google-build-using-namespace): test helpers

class RoutesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const auto png = testing::RenderTextPng("Order 7781 shipped");
    if (!png.empty())
      png_ = new std::string(testing::ReadFileOrDie(png));
    server_ = new ServerProcess();
    // These tests check answers, not the deadline (ServerOptionsTest starts its own server for
    // that): a generous one keeps long documents from answering 504 in sanitizer builds, where
    // OCR runs several times slower.
    if (!server_->Start({"--threads", "2", "--request-timeout", "900"})) {
      delete server_;
      server_ = nullptr;
    }
  }

  static void TearDownTestSuite() {
    if (server_ != nullptr) {
      EXPECT_EQ(server_->Stop(), 0);
    }
    delete server_;
    delete png_;
  }

  void SetUp() override {
    ASSERT_NE(server_, nullptr) << "server did not start";
    if (png_ == nullptr)
      GTEST_SKIP() << "pango-view not installed (scripts/bootstrap installs it)";
  }

  static unsigned short port() { return server_->port(); }

  static ServerProcess* server_;
  static std::string* png_;
};

ServerProcess* RoutesTest::server_ = nullptr;
std::string* RoutesTest::png_ = nullptr;

TEST_F(RoutesTest, MultipartMarkdownWithPagination) {
  const Response res = Send(port(), FormRequest({{"file", *png_, "scan.png"},
                                                 {"output_format", "Markdown"},
                                                 {"paginate_output", "On"}}));
  ASSERT_EQ(res.result_int(), 200) << res.body();
  const Json j = BodyJson(res);
  EXPECT_EQ(j["success"], true);
  EXPECT_EQ(j["format"], "markdown");
  EXPECT_EQ(j["page_count"], 1);
  EXPECT_TRUE(j["processing_time"].is_number());
  const std::string output = j["output"];
  // marker's pagination: a blank line, then "{0}" and 48 dashes and a blank line before the page.
  const std::string separator = "\n\n{0}" + std::string(48, '-') + "\n\n";
  ASSERT_EQ(output.rfind(separator, 0), 0u) << output;
  EXPECT_EQ(WithoutSpaces(output.substr(separator.size())), "Order7781shipped");
  ASSERT_EQ(j["pages"].size(), 1u);
  const Json& page = j["pages"][0];
  EXPECT_EQ(page["page"], 0);
  EXPECT_EQ(page["source"], "ocr");
  EXPECT_GT(page["width"].get<int>(), 100);
  EXPECT_GT(page["height"].get<int>(), 30);
  EXPECT_EQ(page["results"], j["results"]);
  ASSERT_EQ(j["results"].size(), 1u);
  EXPECT_EQ(WithoutSpaces(j["results"][0]["text"]), "Order7781shipped");
}

TEST_F(RoutesTest, MultipartJsonFormatHasNoOutputAndHtmlIsEscapedMarkup) {
  const Response json = Send(port(), FormRequest({{"file", *png_, "a.png"}}));
  ASSERT_EQ(json.result_int(), 200) << json.body();
  EXPECT_FALSE(BodyJson(json).contains("output"));
  EXPECT_EQ(BodyJson(json)["format"], "json");
  const Response html =
      Send(port(), FormRequest({{"file", *png_, "a.png"}, {"output_format", "html"}}));
  ASSERT_EQ(html.result_int(), 200) << html.body();
  // A whole HTML5 document, as marker's server answers.
  const std::string output = BodyJson(html)["output"];
  EXPECT_EQ(output.rfind("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">", 0), 0u)
      << output;
  EXPECT_NE(output.find("<body>\n<p>"), std::string::npos) << output;
  EXPECT_TRUE(output.ends_with("</body>\n</html>\n")) << output;
  EXPECT_EQ(output.find("data-page-id"), std::string::npos) << output;
  const Response text =
      Send(port(), FormRequest({{"file", *png_, "a.png"}, {"output_format", "text"}}));
  EXPECT_EQ(WithoutSpaces(BodyJson(text)["output"]), "Order7781shipped\n");
}

// POST /render: the answer a client holds, written again as POST /ocr writes it, with no OCR.
TEST_F(RoutesTest, RenderWritesAHeldAnswerAsTheOcrRouteDoes) {
  const Response json = Send(port(), FormRequest({{"file", *png_, "a.png"}}));
  ASSERT_EQ(json.result_int(), 200) << json.body();
  for (const std::string format : {"markdown", "html", "text", "csv"}) {
    SCOPED_TRACE(format);
    const Response direct =
        Send(port(), FormRequest({{"file", *png_, "a.png"}, {"output_format", format}}));
    ASSERT_EQ(direct.result_int(), 200) << direct.body();
    const Json body = {{"answer", BodyJson(json)}, {"output_format", format}};
    const Response rendered = Send(port(), MakeRequest(bhttp::verb::post, "/render", body.dump()));
    ASSERT_EQ(rendered.result_int(), 200) << rendered.body();
    const Json answer = BodyJson(rendered);
    EXPECT_EQ(answer, (Json{{"format", format}, {"output", BodyJson(direct)["output"]}}));
  }
  // An image without a table has no CSV.
  EXPECT_EQ(BodyJson(Send(port(), FormRequest({{"file", *png_, "a.png"},
                                               {"output_format", "csv"}})))["output"],
            "");
  const Response bad = Send(port(), MakeRequest(bhttp::verb::post, "/render", "{\"answer\": 1}"));
  EXPECT_EQ(bad.result_int(), 400);
  EXPECT_EQ(ErrorCodeOf(bad), "missing_field");
  EXPECT_EQ(Send(port(), MakeRequest(bhttp::verb::get, "/render")).result_int(), 405);
}

// The archive formats through the API: the searchable PDF as a download, hOCR and ALTO in the
// envelope's output (words placed whatever return_word_boxes says; listed only when asked).
TEST_F(RoutesTest, ArchiveFormats) {
  const Response pdf =
      Send(port(), FormRequest({{"file", *png_, "scan 1.png"}, {"output_format", "pdf"}}));
  ASSERT_EQ(pdf.result_int(), 200) << pdf.body();
  EXPECT_EQ(Header(pdf, "Content-Type"), "application/pdf");
  EXPECT_EQ(Header(pdf, "Content-Disposition"), "attachment; filename=\"scan1.pdf\"");
  EXPECT_EQ(pdf.body().rfind("%PDF-", 0), 0u);
  EXPECT_NE(pdf.body().find("/GlyphLessFont"), std::string::npos);
  EXPECT_EQ(pdf.body().find("pdfaid"), std::string::npos);
  const Response pdfa = Send(
      port(), FormRequest({{"file", *png_, "a.png"}, {"output_format", "pdf"}, {"pdfa", "true"}}));
  ASSERT_EQ(pdfa.result_int(), 200) << pdfa.body();
  EXPECT_NE(pdfa.body().find("<pdfaid:part>2</pdfaid:part>"), std::string::npos);

  const Response hocr =
      Send(port(), FormRequest({{"file", *png_, "a.png"}, {"output_format", "hocr"}}));
  ASSERT_EQ(hocr.result_int(), 200) << hocr.body();
  const Json h = BodyJson(hocr);
  EXPECT_EQ(h["format"], "hocr");
  EXPECT_NE(h["output"].get<std::string>().find("class='ocrx_word'"), std::string::npos);
  EXPECT_FALSE(h["results"][0].contains("words"));
  const Response alto = Send(port(), FormRequest({{"file", *png_, "a.png"},
                                                  {"output_format", "alto"},
                                                  {"return_word_boxes", "true"}}));
  ASSERT_EQ(alto.result_int(), 200) << alto.body();
  EXPECT_NE(BodyJson(alto)["output"].get<std::string>().find("<String ID="), std::string::npos);
  EXPECT_TRUE(BodyJson(alto)["results"][0].contains("words"));

  const Response streamed =
      Send(port(),
           FormRequest({{"file", *png_, "a.png"}, {"output_format", "pdf"}, {"stream", "true"}}));
  EXPECT_EQ(streamed.result_int(), 400);
  EXPECT_EQ(ErrorCodeOf(streamed), "invalid_option");
  EXPECT_NE(BodyJson(streamed)["error"].get<std::string>().find("POST /jobs"), std::string::npos);
}

TEST_F(RoutesTest, MultipartErrors) {
  struct Case {
    const char* what;
    std::vector<FormField> fields;
    unsigned status;
    const char* code;
  };

  const std::vector<Case> cases = {
      {"bad format", {{"file", *png_, "a.png"}, {"output_format", "docx"}}, 400, "invalid_option"},
      {"bad boolean",
       {{"file", *png_, "a.png"}, {"paginate_output", "maybe"}},
       400,
       "invalid_option"},
      {"page beyond an image",
       {{"file", *png_, "a.png"}, {"page_range", "2-3"}},
       400,
       "invalid_option"},
      {"bad page range", {{"file", *png_, "a.png"}, {"page_range", "3-1"}}, 400, "invalid_option"},
      {"unknown model", {{"file", *png_, "a.png"}, {"model", "nope"}}, 400, "invalid_option"},
      {"drop_score text",
       {{"file", *png_, "a.png"}, {"drop_score", "high"}},
       400,
       "invalid_option"},
      {"no file", {{"output_format", "text"}}, 400, "missing_field"},
      {"text file", {{"file", "hello", "note.txt"}}, 415, "unsupported_media_type"},
      {"broken pdf", {{"file", "%PDF-1.4\n%...", "doc.pdf"}}, 422, "invalid_pdf"},
      {"truncated png", {{"file", png_->substr(0, 100), "cut.png"}}, 422, "undecodable_image"},
      {"huge png", {{"file", PngHeaderOnly(60000, 60000), "big.png"}}, 422, "image_too_large"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const Response res = Send(port(), FormRequest(c.fields));
    EXPECT_EQ(res.result_int(), c.status) << res.body();
    EXPECT_EQ(ErrorCodeOf(res), c.code);
    EXPECT_EQ(BodyJson(res)["success"], false);
  }
}

// A PDF cut short in transfer is called damaged, not empty: the client knows to send it again.
TEST_F(RoutesTest, ATruncatedPdfIsReportedAsDamaged) {
  std::string missing;
  if (!pdf::testing::HaveTools(&missing))
    GTEST_SKIP() << "PDF tools missing: " << missing;
  const auto born = pdf::testing::MakeTextPdf("api_cut", {"Invoice 1001", "Total due 42"}, "a4");
  ASSERT_FALSE(born.empty());
  const std::string bytes = testing::ReadFileOrDie(born);
  for (const std::size_t keep : {bytes.size() / 2, bytes.size() - 40}) {
    const Response res = Send(port(), FormRequest({{"file", bytes.substr(0, keep), "cut.pdf"}}));
    if (res.result_int() == 200)
      continue;  // poppler recovered every page from what arrived
    EXPECT_EQ(res.result_int(), 422) << keep;
    EXPECT_EQ(ErrorCodeOf(res), "invalid_pdf") << keep;
    EXPECT_NE(BodyJson(res)["error"].get<std::string>().find("damaged"), std::string::npos)
        << res.body();
  }
  const Response half =
      Send(port(), FormRequest({{"file", bytes.substr(0, bytes.size() / 2), "cut.pdf"}}));
  EXPECT_EQ(BodyJson(half)["error"],
            "the PDF is damaged: it is truncated (it stops before its end, %%EOF) and no page "
            "could be recovered from what arrived; send the whole file");
}

TEST_F(RoutesTest, PdfsComeBackPageByPageInEveryFormat) {
  std::string missing;
  if (!pdf::testing::HaveTools(&missing))
    GTEST_SKIP() << "PDF tools missing: " << missing;
  const auto born = pdf::testing::MakeTextPdf("api_born", {"Invoice 1001", "Total due 42"}, "a4");
  ASSERT_FALSE(born.empty());
  const std::string bytes = testing::ReadFileOrDie(born);
  const Response md = Send(port(), FormRequest({{"file", bytes, "in.pdf"},
                                                {"output_format", "markdown"},
                                                {"paginate_output", "true"}}));
  ASSERT_EQ(md.result_int(), 200) << md.body();
  const Json j = BodyJson(md);
  EXPECT_EQ(j["page_count"], 2);
  ASSERT_EQ(j["pages"].size(), 2u);
  for (int p = 0; p < 2; ++p) {
    EXPECT_EQ(j["pages"][p]["page"], p);
    EXPECT_EQ(j["pages"][p]["source"], "text_layer");
  }
  const std::string dashes(48, '-');
  EXPECT_EQ(j["output"],
            "\n\n{0}" + dashes + "\n\nInvoice 1001\n\n{1}" + dashes + "\n\nTotal due 42");
  const Response html = Send(port(), FormRequest({{"file", bytes, "in.pdf"},
                                                  {"output_format", "html"},
                                                  {"paginate_output", "t"}}));
  ASSERT_EQ(html.result_int(), 200) << html.body();
  EXPECT_EQ(BodyJson(html)["output"],
            "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n</head>\n<body>\n"
            "<div class='page' data-page-id='0'>\n<p>Invoice 1001</p>\n</div>\n"
            "<div class='page' data-page-id='1'>\n<p>Total due 42</p>\n</div>\n"
            "</body>\n</html>\n");
  ASSERT_EQ(j["results"].size(), 2u);
  EXPECT_EQ(j["results"][1]["text"], "Total due 42");

  const Response forced = Send(port(), FormRequest({{"file", bytes, "in.pdf"},
                                                    {"force_ocr", "1"},
                                                    {"page_range", "1"},
                                                    {"output_format", "text"}}));
  ASSERT_EQ(forced.result_int(), 200) << forced.body();
  const Json f = BodyJson(forced);
  ASSERT_EQ(f["pages"].size(), 1u);
  EXPECT_EQ(f["pages"][0]["page"], 1);
  EXPECT_EQ(f["pages"][0]["source"], "ocr");
  EXPECT_EQ(WithoutSpaces(f["output"]), "Totaldue42\n");

  const auto locked = pdf::testing::MakeEncryptedPdf("api_locked", born, "pw");
  const Response enc =
      Send(port(), FormRequest({{"file", testing::ReadFileOrDie(locked), "locked.pdf"}}));
  EXPECT_EQ(enc.result_int(), 422);
  EXPECT_EQ(ErrorCodeOf(enc), "encrypted_pdf");
  // The JSON form takes images only, and says where PDFs go.
  const Response json = Send(port(), MakeRequest(bhttp::verb::post, "/ocr", OcrBody(bytes)));
  EXPECT_EQ(json.result_int(), 415);
  EXPECT_NE(json.body().find("multipart"), std::string::npos);
}

TEST(ServerOptionsTest, MaxPdfPagesRefusesLongDocuments) {
  std::string missing;
  if (!pdf::testing::HaveTools(&missing))
    GTEST_SKIP() << "PDF tools missing: " << missing;
  const auto pdf = pdf::testing::MakeTextPdf("api_long", {"one", "two", "three"}, "a4");
  ASSERT_FALSE(pdf.empty());
  ServerProcess server;
  ASSERT_TRUE(server.Start({"--max-pdf-pages", "2"}));
  const Response res =
      Send(server.port(), FormRequest({{"file", testing::ReadFileOrDie(pdf), "long.pdf"}}));
  EXPECT_EQ(res.result_int(), 422);
  EXPECT_EQ(ErrorCodeOf(res), "too_many_pages");
  EXPECT_EQ(server.Stop(), 0);
}

// POST /render reserves about ten times its body from the memory budget, as OCR work reserves
// its estimate: an answer past the whole budget is refused with 413, a small one is written.
TEST(ServerOptionsTest, TheMemoryBudgetBoundsRender) {
  ServerProcess server;
  ASSERT_TRUE(server.Start({"--memory-budget-mb", "8"}));
  const Json small = {{"answer", {{"results", Json::array()}}}, {"output_format", "text"}};
  const Response ok = Send(server.port(), MakeRequest(bhttp::verb::post, "/render", small.dump()));
  EXPECT_EQ(ok.result_int(), 200) << ok.body();
  Json large = small;
  large["padding"] = std::string(1 << 20, 'x');  // ignored by the parser, counted in the body
  const Response refused =
      Send(server.port(), MakeRequest(bhttp::verb::post, "/render", large.dump()));
  EXPECT_EQ(refused.result_int(), 413) << refused.body();
  EXPECT_EQ(ErrorCodeOf(refused), "payload_too_large");
  EXPECT_NE(BodyJson(refused)["error"].get<std::string>().find("--memory-budget-mb"),
            std::string::npos);
  EXPECT_EQ(server.Stop(), 0);
}

// The server's detection flags are the defaults of every request, and a request's own options
// override them in both forms.
TEST(ServerOptionsTest, ReadingFlagsAreDefaultsARequestOverrides) {
  const auto png_path =
      testing::RenderTextPng("Order 7781 shipped\nInvoice 2231 paid\nTotal 17 boxes");
  if (png_path.empty())
    GTEST_SKIP() << "no text renderer";
  const std::string png = testing::ReadFileOrDie(png_path);
  ServerProcess server;
  // A 32 px detector input blurs the three lines into at most one.
  ASSERT_TRUE(server.Start({"--det-limit-side-len", "32", "--det-limit-type", "max",
                            "--text-normalization", "off", "--word-boxes"}));
  const Response blind = Send(server.port(), MakeRequest(bhttp::verb::post, "/ocr", OcrBody(png)));
  ASSERT_EQ(blind.result_int(), 200) << blind.body();
  EXPECT_LE(Json::parse(blind.body())["results"].size(), 1u) << blind.body();

  Json body = Json::parse(OcrBody(png));
  body["det_limit_side_len"] = 960;
  body["det_limit_type"] = "auto";
  body["text_normalization"] = true;
  const Response json = Send(server.port(), MakeRequest(bhttp::verb::post, "/ocr", body.dump()));
  ASSERT_EQ(json.result_int(), 200) << json.body();
  const Json lines = Json::parse(json.body())["results"];
  ASSERT_EQ(lines.size(), 3u) << json.body();
  EXPECT_EQ(lines[0]["text"], "Order 7781 shipped");
  EXPECT_TRUE(lines[0].contains("words")) << json.body();  // --word-boxes: the server's default

  body["return_word_boxes"] = false;
  const Response plain = Send(server.port(), MakeRequest(bhttp::verb::post, "/ocr", body.dump()));
  ASSERT_EQ(plain.result_int(), 200) << plain.body();
  EXPECT_FALSE(Json::parse(plain.body())["results"][0].contains("words")) << plain.body();

  const Response form = Send(server.port(), FormRequest({{"file", png, "a.png"},
                                                         {"det_limit_side_len", "960"},
                                                         {"det_limit_type", "max"}}));
  ASSERT_EQ(form.result_int(), 200) << form.body();
  EXPECT_EQ(Json::parse(form.body())["results"].size(), 3u) << form.body();

  const Response bad =
      Send(server.port(), FormRequest({{"file", png, "a.png"}, {"det_limit_type", "tile"}}));
  EXPECT_EQ(bad.result_int(), 400);
  EXPECT_EQ(ErrorCodeOf(bad), "invalid_option");
  EXPECT_EQ(Json::parse(bad.body())["error"], "det_limit_type must be max, min or auto");
  EXPECT_EQ(server.Stop(), 0);
}

// One set of input limits reaches both forms: a TIFF's frames are pages under --max-pdf-pages
// whether it comes as JSON (which reads frame 0) or as a multipart upload.
TEST(ServerOptionsTest, MaxPdfPagesCapsTiffFramesInBothForms) {
  const image::testing::Bytes tiff = image::testing::BuildGrayTiffFrames(
      false, {cv::Size(64, 32), cv::Size(64, 32), cv::Size(64, 32)});
  const std::string bytes(tiff.begin(), tiff.end());
  ServerProcess server;
  ASSERT_TRUE(server.Start({"--max-pdf-pages", "2"}));
  const Response form = Send(server.port(), FormRequest({{"file", bytes, "scan.tiff"}}));
  const Response json = Send(server.port(), MakeRequest(bhttp::verb::post, "/ocr", OcrBody(bytes)));
  EXPECT_EQ(form.result_int(), 422);
  EXPECT_EQ(ErrorCodeOf(form), "too_many_pages");
  EXPECT_EQ(json.result_int(), form.result_int());
  EXPECT_EQ(json.body(), form.body());
  // Within the limit both forms read it: the JSON form its first frame, the form every frame.
  const image::testing::Bytes two_frames =
      image::testing::BuildGrayTiffFrames(false, {cv::Size(64, 32), cv::Size(64, 32)});
  const std::string two(two_frames.begin(), two_frames.end());
  EXPECT_EQ(Send(server.port(), MakeRequest(bhttp::verb::post, "/ocr", OcrBody(two))).result_int(),
            200);
  const Response pages = Send(server.port(), FormRequest({{"file", two, "scan.tiff"}}));
  ASSERT_EQ(pages.result_int(), 200);
  EXPECT_EQ(Json::parse(pages.body())["page_count"], 2);
  EXPECT_EQ(server.Stop(), 0);
}

TEST_F(RoutesTest, DropScoreAndPageRangeAccepted) {
  const Response res = Send(port(), FormRequest({{"file", *png_, "a.png"},
                                                 {"drop_score", "1"},
                                                 {"page_range", "0"},
                                                 {"force_ocr", "true"},
                                                 {"cls", "no"}}));
  ASSERT_EQ(res.result_int(), 200) << res.body();
  EXPECT_TRUE(BodyJson(res)["results"].empty());  // nothing is that sure
}

TEST_F(RoutesTest, MetricsFollowTheExpositionFormat) {
  ASSERT_EQ(Send(port(), MakeRequest(bhttp::verb::post, "/ocr", OcrBody(*png_))).result_int(), 200);
  const Response res = Send(port(), MakeRequest(bhttp::verb::get, "/metrics"));
  ASSERT_EQ(res.result_int(), 200);
  EXPECT_EQ(Header(res, "Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string& m = res.body();
  for (const char* want :
       {"# TYPE onnxocr_http_requests_total counter\n",
        "onnxocr_http_requests_total{route=\"/ocr\",method=\"POST\",status=\"200\"} ",
        "# TYPE onnxocr_http_request_duration_seconds histogram\n",
        "onnxocr_http_request_duration_seconds_bucket{route=\"/ocr\",le=\"+Inf\"} ",
        "onnxocr_http_request_duration_seconds_count{route=\"/ocr\"} ",
        "onnxocr_stage_duration_seconds_bucket{stage=\"rec_infer\",le=\"0.005\"} ",
        "# TYPE onnxocr_queue_depth gauge\nonnxocr_queue_depth 0\n",
        "# TYPE onnxocr_lines_recognized_total counter\n"}) {
    EXPECT_NE(m.find(want), std::string::npos) << "missing: " << want << "\n" << m;
  }
  // Every sample line belongs to a family declared with HELP and TYPE before it.
  std::set<std::string> declared;
  size_t pos = 0;
  while (pos < m.size()) {
    const size_t eol = m.find('\n', pos);
    ASSERT_NE(eol, std::string::npos) << "exposition must end with a newline";
    const std::string line = m.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.rfind("# TYPE ", 0) == 0) {
      declared.insert(line.substr(7, line.find(' ', 7) - 7));
    } else if (!line.empty() && line[0] != '#') {
      std::string name = line.substr(0, line.find_first_of("{ "));
      for (const char* suffix : {"_bucket", "_sum", "_count"}) {
        const std::string s = suffix;
        if (!declared.count(name) && name.size() > s.size() &&
            name.compare(name.size() - s.size(), s.size(), s) == 0) {
          name.resize(name.size() - s.size());
        }
      }
      EXPECT_TRUE(declared.count(name)) << "undeclared sample: " << line;
    }
  }
}

TEST_F(RoutesTest, InfoDescribesModelsAndWorkers) {
  const Response res = Send(port(), MakeRequest(bhttp::verb::get, "/info"));
  ASSERT_EQ(res.result_int(), 200);
  const Json j = BodyJson(res);
  EXPECT_EQ(j["default_model"], "ppocrv4");
  EXPECT_EQ(std::string(j["onnxruntime_version"]).rfind("1.", 0), 0u);
  ASSERT_EQ(j["model_sets"].size(), 1u);
  EXPECT_EQ(j["model_sets"][0]["name"], "ppocrv4");
  EXPECT_EQ(j["model_sets"][0]["dictionary_size"], 6623);
  EXPECT_EQ(j["model_sets"][0]["classifier"], true);
  // Each part: its family, its path from the set's folder and its digest (bootstrap's pins).
  const Json& parts = j["model_sets"][0]["parts"];
  EXPECT_EQ(parts["det"],
            Json({{"family", "ppocrv4"},
                  {"file", "det/det.onnx"},
                  {"sha256", "30a86f5731181461d08021402766601e4302a9b9b9666be8aff402696339cdff"}}));
  EXPECT_EQ(parts["cls"]["family"], "ppocrv4");
  EXPECT_EQ(parts["cls"]["file"], "cls/cls.onnx");
  EXPECT_EQ(parts["rec"]["file"], "rec/rec.onnx");
  EXPECT_EQ(parts["rec"]["dictionary"]["file"], "ppocr_keys_v1.txt");
  EXPECT_EQ(parts["rec"]["dictionary"]["sha256"],
            "28b2362ad4ab2dc38769aa72feb535e3a9ddb3fd2a7585a05920e6393b1dc7f7");
  EXPECT_EQ(j["workers"]["threads"], 2);
  EXPECT_TRUE(j["version"].is_string());
}

TEST_F(RoutesTest, OpenApiDescribesEveryRouteAndErrorCode) {
  const Response res = Send(port(), MakeRequest(bhttp::verb::get, "/openapi.json"));
  ASSERT_EQ(res.result_int(), 200);
  const Json j = BodyJson(res);
  EXPECT_EQ(j["openapi"], "3.0.3");
  for (const char* path : {"/ocr", "/ocr_api", "/healthz", "/readyz", "/metrics", "/info",
                           "/openapi.json", "/docs", "/"}) {
    EXPECT_TRUE(j["paths"].contains(path)) << path;
  }
  const Json& codes = j["components"]["schemas"]["Error"]["properties"]["code"]["enum"];
  EXPECT_EQ(j["components"]["schemas"]["Error"]["properties"]["error"]["type"], "string");
  for (const char* code : {"invalid_json",
                           "missing_field",
                           "invalid_base64",
                           "invalid_option",
                           "invalid_multipart",
                           "invalid_request",
                           "job_not_finished",
                           "header_too_large",
                           "http_version_not_supported",
                           "not_found",
                           "method_not_allowed",
                           "payload_too_large",
                           "unsupported_media_type",
                           "undecodable_image",
                           "image_too_large",
                           "invalid_pdf",
                           "encrypted_pdf",
                           "too_many_pages",
                           "server_busy",
                           "not_ready",
                           "deadline_exceeded",
                           "internal"}) {
    EXPECT_NE(std::find(codes.begin(), codes.end(), code), codes.end()) << code;
  }
  // Every $ref points at a component that exists.
  const std::string text = res.body();
  for (size_t at = text.find("\"$ref\""); at != std::string::npos;
       at = text.find("\"$ref\"", at + 1)) {
    const size_t q1 = text.find('"', text.find(':', at) + 1);
    const std::string ref = text.substr(q1 + 1, text.find('"', q1 + 1) - q1 - 1);
    const std::string kind = ref.substr(13, ref.find('/', 13) - 13);  // after "#/components/"
    const std::string name = ref.substr(ref.rfind('/') + 1);
    EXPECT_TRUE(j["components"][kind].contains(name)) << ref;
  }
}

TEST_F(RoutesTest, DocsAndWebUiAreServedWithStrictPolicies) {
  const Response docs = Send(port(), MakeRequest(bhttp::verb::get, "/docs"));
  ASSERT_EQ(docs.result_int(), 200);
  EXPECT_EQ(Header(docs, "Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(Header(docs, "Content-Security-Policy").find("default-src 'none'"), std::string::npos);
  EXPECT_NE(docs.body().find("/ocr_api"), std::string::npos);
  EXPECT_EQ(docs.body().find("<script"), std::string::npos);
  EXPECT_EQ(Send(port(), MakeRequest(bhttp::verb::get, "/docs.css")).result_int(), 200);

  const Response page = Send(port(), MakeRequest(bhttp::verb::get, "/"));
  ASSERT_EQ(page.result_int(), 200);
  EXPECT_EQ(Header(page, "Content-Type"), "text/html; charset=utf-8");
  const std::string csp = Header(page, "Content-Security-Policy");
  EXPECT_NE(csp.find("script-src 'self'"), std::string::npos) << csp;
  EXPECT_EQ(csp.find("unsafe-inline"), std::string::npos) << csp;
  EXPECT_EQ(Header(page, "X-Content-Type-Options"), "nosniff");
  const std::string etag = Header(page, "ETag");
  ASSERT_FALSE(etag.empty());
  Request again = MakeRequest(bhttp::verb::get, "/");
  again.set(bhttp::field::if_none_match, etag);
  const Response cached = Send(port(), std::move(again));
  EXPECT_EQ(cached.result_int(), 304);
  EXPECT_TRUE(cached.body().empty());
  const Response js = Send(port(), MakeRequest(bhttp::verb::get, "/app.js"));
  EXPECT_EQ(js.result_int(), 200);
  EXPECT_EQ(Header(js, "Content-Type"), "text/javascript; charset=utf-8");
}

TEST_F(RoutesTest, CorsIsOffByDefault) {
  Request req = MakeRequest(bhttp::verb::get, "/healthz");
  req.set(bhttp::field::origin, "https://elsewhere.example");
  const Response res = Send(port(), std::move(req));
  EXPECT_EQ(res.result_int(), 200);
  EXPECT_EQ(Header(res, "Access-Control-Allow-Origin"), "");
  Request preflight = MakeRequest(bhttp::verb::options, "/ocr");
  preflight.set(bhttp::field::origin, "https://elsewhere.example");
  EXPECT_EQ(Send(port(), std::move(preflight)).result_int(), 405);
}

TEST(ServerOptionsTest, CorsOriginAllowsThatOriginOnly) {
  ServerProcess server;
  ASSERT_TRUE(server.Start({"--cors-origin", "https://app.example"}));
  Request preflight = MakeRequest(bhttp::verb::options, "/ocr");
  preflight.set(bhttp::field::origin, "https://app.example");
  const Response pre = Send(server.port(), std::move(preflight));
  EXPECT_EQ(pre.result_int(), 204);
  EXPECT_EQ(Header(pre, "Access-Control-Allow-Origin"), "https://app.example");
  EXPECT_NE(Header(pre, "Access-Control-Allow-Methods").find("POST"), std::string::npos);
  Request other = MakeRequest(bhttp::verb::get, "/healthz");
  other.set(bhttp::field::origin, "https://evil.example");
  EXPECT_EQ(Header(Send(server.port(), std::move(other)), "Access-Control-Allow-Origin"), "");
  EXPECT_EQ(server.Stop(), 0);
}

TEST(ServerOptionsTest, ConnectionsOverTheLimitAreTurnedAway) {
  ServerProcess server;
  ASSERT_TRUE(server.Start({"--max-connections", "2"}));
  net::io_context ioc;
  tcp::socket a = Connect(ioc, server.port());
  tcp::socket b = Connect(ioc, server.port());
  // Let the server register both before the third arrives.
  EXPECT_EQ(Exchange(a, MakeRequest(bhttp::verb::get, "/healthz")).result_int(), 200);
  EXPECT_EQ(Exchange(b, MakeRequest(bhttp::verb::get, "/healthz")).result_int(), 200);
  // A connection over the limit that sends nothing is answered 503 after a second.
  tcp::socket c = Connect(ioc, server.port());
  beast::flat_buffer buffer;
  Response res;
  beast::error_code ec;
  bhttp::read(c, buffer, res, ec);
  EXPECT_EQ(res.result_int(), 503);
  EXPECT_EQ(ErrorCodeOf(res), "server_busy");
  EXPECT_EQ(Header(res, "Retry-After"), "1");
  // Probes are still answered over the limit; nothing else is.
  EXPECT_EQ(Send(server.port(), MakeRequest(bhttp::verb::get, "/healthz")).result_int(), 200);
  EXPECT_EQ(Send(server.port(), MakeRequest(bhttp::verb::get, "/readyz")).result_int(), 200);
  const Response info = Send(server.port(), MakeRequest(bhttp::verb::get, "/info"));
  EXPECT_EQ(info.result_int(), 503);
  EXPECT_EQ(ErrorCodeOf(info), "server_busy");
  // More silent connections than the lane holds, old enough to be pushed out: a probe still gets
  // through, and each pushed-out connection is answered 503.
  std::vector<tcp::socket> idle;
  for (int i = 0; i < 40; ++i)
    idle.push_back(Connect(ioc, server.port()));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  for (int i = 0; i < 8; ++i)
    idle.push_back(Connect(ioc, server.port()));
  EXPECT_EQ(Send(server.port(), MakeRequest(bhttp::verb::get, "/healthz")).result_int(), 200);
  beast::flat_buffer pushed_buffer;
  Response pushed;
  bhttp::read(idle.front(), pushed_buffer, pushed, ec);
  EXPECT_EQ(pushed.result_int(), 503);
  a.close();
  b.close();
  EXPECT_EQ(server.Stop(), 0);
}

TEST(ServerOptionsTest, RequestTimeoutAnswers504AndFreesTheWorker) {
  // 40 lines keep the only worker busy for well over a second on this hardware.
  std::string text;
  for (int i = 0; i < 40; ++i)
    text += "Line " + std::to_string(i) + " of a long scanned page\n";
  const auto png = testing::RenderTextPng(text, 14);
  if (png.empty())
    GTEST_SKIP() << "pango-view not installed";
  const std::string body = OcrBody(testing::ReadFileOrDie(png));
  ServerProcess server;
  ASSERT_TRUE(server.Start({"--threads", "1", "--request-timeout", "1"}));
  std::vector<std::thread> clients;
  std::vector<unsigned> statuses(3);
  std::vector<std::string> codes(3);
  for (int i = 0; i < 3; ++i) {
    clients.emplace_back([&, i] {
      const Response res = Send(server.port(), MakeRequest(bhttp::verb::post, "/ocr", body));
      statuses[i] = res.result_int();
      codes[i] = ErrorCodeOf(res);
    });
  }
  for (auto& t : clients)
    t.join();
  int timed_out = 0;
  for (int i = 0; i < 3; ++i) {
    if (statuses[i] == 504) {
      ++timed_out;
      EXPECT_EQ(codes[i], "deadline_exceeded");
    }
  }
  EXPECT_GE(timed_out, 2);  // at most the first can finish within a second
  // Abandoned work stops at once, so the worker is soon free for a small request.
  const auto small = testing::RenderTextPng("Order 7781 shipped");
  Response next;
  for (int attempt = 0; attempt < 20; ++attempt) {
    next = Send(server.port(),
                MakeRequest(bhttp::verb::post, "/ocr", OcrBody(testing::ReadFileOrDie(small))));
    if (next.result_int() == 200)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  EXPECT_EQ(next.result_int(), 200) << next.body();
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace ocr::http

namespace ocr::http {
namespace {

using namespace testing_support;  // NOLINT(google-build-using-namespace): test helpers

TEST_F(RoutesTest, ReturnWordBoxesAddsWordsToEachResult) {
  Json body = Json::parse(OcrBody(*png_));
  body["return_word_boxes"] = true;
  const Response with = Send(port(), MakeRequest(bhttp::verb::post, "/ocr", body.dump()));
  ASSERT_EQ(with.result_int(), 200) << with.body();
  const Json j = BodyJson(with);
  ASSERT_FALSE(j["results"].empty()) << with.body();
  for (const Json& line : j["results"]) {
    ASSERT_TRUE(line.contains("words")) << line.dump();
    ASSERT_TRUE(line["words"].is_array());
    EXPECT_FALSE(line["words"].empty()) << line.dump();
    for (const Json& word : line["words"]) {
      EXPECT_TRUE(word["text"].is_string());
      EXPECT_TRUE(word["confidence"].is_number());
      ASSERT_EQ(word["bounding_box"].size(), 4u) << word.dump();
      for (const Json& p : word["bounding_box"])
        EXPECT_EQ(p.size(), 2u);
    }
  }
  // The multipart form takes the same field.
  const Response form =
      Send(port(), FormRequest({{"file", *png_, "a.png"}, {"return_word_boxes", "true"}}));
  ASSERT_EQ(form.result_int(), 200) << form.body();
  // A named copy: a range-for over a member of a temporary dangles (the temporary is destroyed
  // before the loop runs; ASan reports it as a heap-use-after-free).
  const Json form_json = BodyJson(form);
  for (const Json& line : form_json["results"])
    EXPECT_TRUE(line.contains("words")) << line.dump();

  const Response without = Send(port(), MakeRequest(bhttp::verb::post, "/ocr", OcrBody(*png_)));
  ASSERT_EQ(without.result_int(), 200);
  const Json k = BodyJson(without);
  ASSERT_FALSE(k["results"].empty());
  for (const Json& line : k["results"])
    EXPECT_FALSE(line.contains("words")) << line.dump();
}

}  // namespace
}  // namespace ocr::http

// End to end: the test documents of pdf/test_documents.h in every output format, as the CLI
// tests read them too.
namespace ocr::http {
namespace {

using namespace testing_support;  // NOLINT(google-build-using-namespace): test helpers
namespace pt = pdf::testing;

// One multipart request per format (pt::EveryFormat); each answer checked.
void ExpectEveryFormat(unsigned short port, const pt::TestDocument& doc, std::string_view source,
                       bool paginate) {
  const std::string bytes = testing::ReadFileOrDie(doc.pdf);
  std::vector<int> all(doc.pages.size());
  std::iota(all.begin(), all.end(), 0);
  for (const pt::FormatRun& run : pt::EveryFormat(paginate)) {
    SCOPED_TRACE(run.format + (run.paginate ? ", paginated" : ""));
    const Response res = Send(port, FormRequest({{"file", bytes, "doc.pdf"},
                                                 {"output_format", run.format},
                                                 {"paginate_output", run.paginate ? "1" : "0"}}));
    ASSERT_EQ(res.result_int(), 200) << res.body();
    pt::ExpectDocumentAnswer(BodyJson(res), doc, run.format, all, run.paginate, source);
  }
}

TEST_F(RoutesTest, ScannedTenPagePdfInEveryFormat) {
  std::string missing;
  if (!pt::HaveTools(&missing))
    GTEST_SKIP() << "PDF tools missing: " << missing;
  const pt::TestDocument doc = pt::MakeScannedDocument("api_scan10");
  ASSERT_FALSE(doc.pdf.empty());
  ExpectEveryFormat(port(), doc, "ocr", false);
}

TEST_F(RoutesTest, BornDigitalPdfInEveryFormat) {
  std::string missing;
  if (!pt::HaveTools(&missing))
    GTEST_SKIP() << "PDF tools missing: " << missing;
  const pt::TestDocument doc = pt::MakeBornDigitalDocument("api_born");
  ASSERT_FALSE(doc.pdf.empty());
  ExpectEveryFormat(port(), doc, "text_layer", true);
  const std::string bytes = testing::ReadFileOrDie(doc.pdf);

  // force_ocr reads what the page shows instead of its text layer.
  const Response forced = Send(port(), FormRequest({{"file", bytes, "doc.pdf"},
                                                    {"force_ocr", "true"},
                                                    {"page_range", "0"},
                                                    {"output_format", "html"}}));
  ASSERT_EQ(forced.result_int(), 200) << forced.body();
  pt::ExpectDocumentAnswer(BodyJson(forced), doc, "html", {0}, false, "ocr");

  // Text-layer lines list their words, each with a box inside the line's.
  const Response words =
      Send(port(), FormRequest({{"file", bytes, "doc.pdf"}, {"return_word_boxes", "true"}}));
  ASSERT_EQ(words.result_int(), 200) << words.body();
  const Json answer = BodyJson(words);
  ASSERT_EQ(answer["results"].size(), 9u);
  for (const Json& line : answer["results"]) {
    std::string joined;
    for (const Json& word : line["words"]) {
      joined += (joined.empty() ? "" : " ") + word["text"].get<std::string>();
      EXPECT_EQ(word["confidence"], 1.0);
      for (int corner = 0; corner < 4; ++corner) {
        EXPECT_GE(word["bounding_box"][corner][0], line["bounding_box"][0][0]);
        EXPECT_LE(word["bounding_box"][corner][0], line["bounding_box"][2][0]);
      }
    }
    EXPECT_EQ(joined, line["text"]);
  }
}

}  // namespace
}  // namespace ocr::http
