// Long documents against the real server (spec/API.md, "Long documents"): a 40-page scanned PDF
// through POST /ocr with stream=true, through POST /jobs with its status, events and result, and
// a job's result rendered again and its pages drawn, the cancellations, limits, expiry and shutdown
// around them.
#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "http/server_client.h"
#include "pdf/test_documents.h"
#include "pdf/test_pdfs.h"
#include "support/redis_process.h"
#include "support/render_text.h"
#include "support/test_paths.h"

namespace ocr::http {
namespace {

using namespace testing_support;  // NOLINT(google-build-using-namespace): test helpers
using Clock = std::chrono::steady_clock;

constexpr int kLongPages = 40;

// How soon a cancelled document's workers must be free. What this proves is that the cancel reaches
// the workers, not how fast: reading the rest of the long document takes well over 5 s on 2
// workers, and the usual wait (the next check of the stop token, 5-25 ms) varies with the load of
// a shared CI machine (100 ms once proved too tight under ASan). That a model run stops mid-run is
// checked without a clock in OrtModelTest.
constexpr std::chrono::milliseconds kCancelBudget{2000};

struct LongDoc {
  std::string bytes;  // empty when the PDF tools are missing or failed
  std::vector<pdf::testing::TestPage> pages;
};

// The scanned test document (10 pages of known text) four times over: 40 pages, no text layer.
const LongDoc& LongDocument() {
  static const LongDoc* doc = [] {
    auto* d = new LongDoc();
    std::string missing;
    if (!pdf::testing::HaveTools(&missing))
      return d;
    const pdf::testing::TestDocument ten = pdf::testing::MakeScannedDocument("jobs_ten");
    if (ten.pdf.empty())
      return d;
    const auto forty = pdf::testing::TempPath("jobs_forty.pdf");
    const std::string p = "'" + ten.pdf.string() + "'";
    if (pdf::testing::Run("qpdf --empty --pages " + p + " " + p + " " + p + " " + p + " -- '" +
                          forty.string() + "'")) {
      d->bytes = testing::ReadFileOrDie(forty);
      for (int copy = 0; copy < 4; ++copy)
        d->pages.insert(d->pages.end(), ten.pages.begin(), ten.pages.end());
    }
    return d;
  }();
  return *doc;
}

// The PDFs' folder goes when the test process ends.
class TempFolderCleanup : public ::testing::Environment {
 public:
  void TearDown() override { pdf::testing::RemoveTempFolder(); }
};

[[maybe_unused]] ::testing::Environment* const kCleanup =
    ::testing::AddGlobalTestEnvironment(new TempFolderCleanup());

// Reads a streamed (chunked) answer as it arrives: `on_line` gets each complete line (without its
// '\n') and returns false to hang up there. Returns the response header.
bhttp::response_header<> ReadLines(unsigned short port, Request req,
                                   const std::function<bool(const std::string&)>& on_line) {
  net::io_context ioc;
  tcp::socket socket = Connect(ioc, port);
  bhttp::write(socket, req);
  beast::flat_buffer buffer;
  bhttp::response_parser<bhttp::string_body> parser;
  parser.body_limit(1ull << 30);
  std::string pending;
  auto on_chunk = [&](std::uint64_t /*remain*/, beast::string_view body,
                      beast::error_code& /*ec*/) {
    pending.append(body.data(), body.size());
    return body.size();
  };
  parser.on_chunk_body(on_chunk);
  bhttp::read_header(socket, buffer, parser);
  beast::error_code ec;
  while (!parser.is_done()) {
    bhttp::read_some(socket, buffer, parser, ec);
    if (ec)
      break;
    for (size_t eol; (eol = pending.find('\n')) != std::string::npos;) {
      const std::string line = pending.substr(0, eol);
      pending.erase(0, eol + 1);
      if (!on_line(line)) {
        socket.shutdown(tcp::socket::shutdown_both, ec);
        socket.close(ec);
        return parser.get().base();
      }
    }
  }
  if (!pending.empty())
    on_line(pending);
  return parser.get().base();
}

struct SseEvent {
  int id = 0;
  std::string name;
  Json data;
};

// Reads GET `target` as Server-Sent Events until the stream ends; `on_event` returns false to
// hang up.
std::vector<SseEvent> ReadEvents(unsigned short port, const std::string& target,
                                 const std::function<bool(const SseEvent&)>& on_event = {}) {
  std::vector<SseEvent> events;
  SseEvent current;
  ReadLines(port, MakeRequest(bhttp::verb::get, target), [&](const std::string& line) {
    if (line.empty()) {
      if (current.name.empty())
        return true;  // the "retry:" block or a comment
      events.push_back(current);
      current = {};
      return !on_event || on_event(events.back());
    }
    if (line.rfind("id: ", 0) == 0)
      current.id = std::stoi(line.substr(4));
    else if (line.rfind("event: ", 0) == 0)
      current.name = line.substr(7);
    else if (line.rfind("data: ", 0) == 0)
      current.data = Json::parse(line.substr(6));
    return true;
  });
  return events;
}

Json GetJson(unsigned short port, const std::string& target) {
  return BodyJson(Send(port, MakeRequest(bhttp::verb::get, target)));
}

// Polls the job until `done(status)` holds or `wait` passes; returns the last status.
Json PollJob(unsigned short port, const std::string& id,
             const std::function<bool(const Json&)>& done,
             std::chrono::seconds wait = std::chrono::seconds(240)) {
  const auto deadline = Clock::now() + wait;
  Json status;
  while (Clock::now() < deadline) {
    status = GetJson(port, "/jobs/" + id);
    if (done(status))
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return status;
}

bool Finished(const Json& status) {
  const std::string s = status.value("status", "");
  return s == "succeeded" || s == "failed" || s == "cancelled";
}

// The in-flight gauge of /metrics: requests and job pages running on workers.
int InFlight(unsigned short port) {
  const std::string text = Send(port, MakeRequest(bhttp::verb::get, "/metrics")).body();
  const std::string name = "\nonnxocr_in_flight_requests ";
  const size_t at = text.find(name);
  return at == std::string::npos ? -1 : std::stoi(text.substr(at + name.size()));
}

// The pages read counter of /metrics.
long PagesRead(unsigned short port) {
  const Response res = Send(port, MakeRequest(bhttp::verb::get, "/metrics"));
  const std::string key = "\nonnxocr_pages_processed_total ";
  const std::size_t at = res.body().find(key);
  return at == std::string::npos ? -1 : std::stol(res.body().substr(at + key.size()));
}

// Milliseconds until no worker runs anything (-1: not within `wait`).
long WaitIdleMs(unsigned short port, std::chrono::milliseconds wait) {
  const auto start = Clock::now();
  while (Clock::now() - start < wait) {
    if (InFlight(port) == 0)
      return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return -1;
}

std::string PostJob(unsigned short port, const std::vector<FormField>& fields) {
  const Response res = Send(port, FormRequest(fields, "/jobs"));
  EXPECT_EQ(res.result_int(), 202) << res.body();
  const Json body = BodyJson(res);
  return body.value("id", "");
}

class JobsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServerProcess();
    // The synchronous answer compared with a job's result needs a long deadline in sanitizer
    // builds.
    if (!server_->Start({"--request-timeout", "600"}))
      std::abort();
  }

  static void TearDownTestSuite() {
    EXPECT_EQ(server_->Stop(), 0);
    delete server_;
    server_ = nullptr;
  }

  void SetUp() override {
    std::string missing;
    if (!pdf::testing::HaveTools(&missing))
      GTEST_SKIP() << "PDF tools missing: " << missing;
    ASSERT_FALSE(LongDocument().bytes.empty());
    pdf_ = LongDocument().bytes;
  }

  static unsigned short port() { return server_->port(); }

  static ServerProcess* server_;
  std::string pdf_;
};

ServerProcess* JobsTest::server_ = nullptr;

// Pages arrive one line each, in page order, while later pages are still being read; the last
// line carries the document's fields.
TEST_F(JobsTest, StreamSendsEachPageAsSoonAsItIsRead) {
  std::vector<Json> lines;
  std::vector<double> at;  // seconds after the request
  const auto start = Clock::now();
  const auto head = ReadLines(
      port(),
      FormRequest({{"file", pdf_, "long.pdf"}, {"stream", "true"}, {"output_format", "text"}}),
      [&](const std::string& line) {
        at.push_back(std::chrono::duration<double>(Clock::now() - start).count());
        lines.push_back(Json::parse(line));
        return true;
      });
  EXPECT_EQ(head.result_int(), 200);
  EXPECT_EQ(head[bhttp::field::content_type], "application/x-ndjson");
  EXPECT_EQ(head[bhttp::field::transfer_encoding], "chunked");
  ASSERT_EQ(lines.size(), kLongPages + 1u);
  for (int p = 0; p < kLongPages; ++p) {
    EXPECT_EQ(lines[p]["page"], p);
    EXPECT_EQ(lines[p]["source"], "ocr");
    ASSERT_FALSE(lines[p]["results"].empty());
    EXPECT_EQ(WithoutSpaces(lines[p]["results"][0]["text"]),
              WithoutSpaces(LongDocument().pages[p][0][0]))
        << "page " << p;
  }
  const Json& last = lines.back();
  EXPECT_EQ(last["success"], true);
  EXPECT_EQ(last["page_count"], kLongPages);
  EXPECT_EQ(last["format"], "text");
  EXPECT_TRUE(last["output"].is_string());
  EXPECT_FALSE(last.contains("pages"));
  // The first page was read while most of the document was still to come.
  EXPECT_LT(at.front(), at.back() / 2)
      << "first line at " << at.front() << " s, last at " << at.back() << " s";
}

TEST_F(JobsTest, StreamErrorsBeforeTheFirstPageAreOrdinaryAnswers) {
  const Response bad =
      Send(port(), FormRequest({{"file", "%PDF-1.4\n%broken", "bad.pdf"}, {"stream", "true"}}));
  EXPECT_EQ(bad.result_int(), 422);
  EXPECT_EQ(ErrorCodeOf(bad), "invalid_pdf");
  const Response range = Send(
      port(), FormRequest({{"file", pdf_, "long.pdf"}, {"stream", "true"}, {"page_range", "900"}}));
  EXPECT_EQ(range.result_int(), 400);
  EXPECT_EQ(ErrorCodeOf(range), "invalid_option");
}

// A job's events come in order (one page event per page, in page order), its status counts the
// pages, and its result is the body the synchronous route answers for the same upload.
TEST_F(JobsTest, JobEventsStatusAndResultMatchTheSynchronousAnswer) {
  const std::vector<FormField> fields = {{"file", pdf_, "long.pdf"}, {"output_format", "markdown"}};
  const Response posted = Send(port(), FormRequest(fields, "/jobs"));
  ASSERT_EQ(posted.result_int(), 202) << posted.body();
  const Json created = BodyJson(posted);
  const std::string id = created["id"];
  EXPECT_EQ(id.size(), 32u);
  EXPECT_EQ(created["status"], "queued");
  EXPECT_EQ(created["status_url"], "/jobs/" + id);
  EXPECT_EQ(created["result_url"], "/jobs/" + id + "/result");
  EXPECT_EQ(created["events_url"], "/jobs/" + id + "/events");
  EXPECT_EQ(Header(posted, "Location"), "/jobs/" + id);

  const Response early = Send(port(), MakeRequest(bhttp::verb::get, "/jobs/" + id + "/result"));
  EXPECT_EQ(early.result_int(), 409);
  EXPECT_EQ(ErrorCodeOf(early), "job_not_finished");

  const std::vector<SseEvent> events = ReadEvents(port(), "/jobs/" + id + "/events");
  ASSERT_FALSE(events.empty());
  int pages = 0;
  int last_done = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const SseEvent& e = events[i];
    EXPECT_EQ(e.id, static_cast<int>(i) + 1);
    if (e.name == "progress") {
      EXPECT_EQ(e.data["page_count"], kLongPages);
      EXPECT_EQ(e.data["pages_done"], last_done + 1);
      last_done = e.data["pages_done"];
    } else if (e.name == "page") {
      EXPECT_EQ(e.data["index"], pages);
      EXPECT_EQ(e.data["page"], pages);
      EXPECT_LE(pages, last_done - 1);  // a page is announced after its progress
      ++pages;
    } else {
      EXPECT_EQ(i, events.size() - 1) << e.name << " before the end";
    }
  }
  EXPECT_EQ(pages, kLongPages);
  EXPECT_EQ(last_done, kLongPages);
  EXPECT_EQ(events.back().name, "done");
  EXPECT_EQ(events.back().data["status"], "succeeded");
  EXPECT_EQ(events.back().data["result_url"], "/jobs/" + id + "/result");

  const Json status = GetJson(port(), "/jobs/" + id);
  EXPECT_EQ(status["status"], "succeeded");
  EXPECT_EQ(status["page_count"], kLongPages);
  EXPECT_EQ(status["pages_done"], kLongPages);
  EXPECT_TRUE(status["error"].is_null());
  for (const char* t : {"created_at", "started_at", "finished_at"})
    EXPECT_TRUE(status[t].is_string() && status[t].get<std::string>().back() == 'Z') << t;

  // A reconnecting EventSource after the last event is told to stop.
  Request again = MakeRequest(bhttp::verb::get, "/jobs/" + id + "/events");
  again.set("Last-Event-ID", std::to_string(events.back().id));
  EXPECT_EQ(Send(port(), again).result_int(), 204);
  again.set("Last-Event-ID", "99999999");  // past the log: its end
  EXPECT_EQ(Send(port(), again).result_int(), 204);
  // One that missed some resumes after the last event it saw.
  Request resume = MakeRequest(bhttp::verb::get, "/jobs/" + id + "/events");
  resume.set("Last-Event-ID", "3");
  std::vector<SseEvent> rest;
  ReadLines(port(), resume, [&](const std::string& line) {
    if (line.rfind("id: ", 0) == 0)
      rest.push_back({std::stoi(line.substr(4)), "", nullptr});
    return true;
  });
  ASSERT_EQ(rest.size(), events.size() - 3);
  EXPECT_EQ(rest.front().id, 4);

  Json result = GetJson(port(), "/jobs/" + id + "/result");
  Json sync = BodyJson(Send(port(), FormRequest(fields)));
  ASSERT_EQ(sync["success"], true);
  result.erase("processing_time");
  sync.erase("processing_time");
  EXPECT_EQ(result, sync);
  EXPECT_EQ(result["page_count"], kLongPages);
}

// DELETE stops a running job: its workers are free within milliseconds, and it stays cancelled.
TEST_F(JobsTest, DeleteCancelsARunningJob) {
  const std::string id = PostJob(port(), {{"file", pdf_, "long.pdf"}});
  ASSERT_FALSE(id.empty());
  const Json running = PollJob(port(), id, [](const Json& s) { return s["pages_done"] >= 2; });
  ASSERT_EQ(running["status"], "running") << running.dump();
  const Response deleted = Send(port(), MakeRequest(bhttp::verb::delete_, "/jobs/" + id));
  ASSERT_EQ(deleted.result_int(), 200);
  EXPECT_EQ(BodyJson(deleted)["status"], "cancelled");
  const long idle_ms = WaitIdleMs(port(), kCancelBudget);
  std::printf("workers idle %ld ms after DELETE\n", idle_ms);
  EXPECT_GE(idle_ms, 0) << "workers still busy " << kCancelBudget.count()
                        << " ms after the job was cancelled";
  const Json status = GetJson(port(), "/jobs/" + id);
  EXPECT_EQ(status["status"], "cancelled");
  EXPECT_LT(status["pages_done"], kLongPages);
  EXPECT_TRUE(status["finished_at"].is_string());
  const Response result = Send(port(), MakeRequest(bhttp::verb::get, "/jobs/" + id + "/result"));
  EXPECT_EQ(result.result_int(), 409);
  // Deleting a finished (here: cancelled) job forgets it.
  EXPECT_EQ(Send(port(), MakeRequest(bhttp::verb::delete_, "/jobs/" + id)).result_int(), 200);
  EXPECT_EQ(Send(port(), MakeRequest(bhttp::verb::get, "/jobs/" + id)).result_int(), 404);
}

// A stream's client that hangs up cancels the pages still to come.
TEST_F(JobsTest, AStreamClientThatHangsUpCancelsItsPages) {
  int lines = 0;
  ReadLines(port(), FormRequest({{"file", pdf_, "long.pdf"}, {"stream", "true"}}),
            [&](const std::string&) { return ++lines < 2; });
  EXPECT_EQ(lines, 2);
  const long idle_ms = WaitIdleMs(port(), kCancelBudget);
  std::printf("workers idle %ld ms after the hang-up\n", idle_ms);
  EXPECT_GE(idle_ms, 0) << "workers still busy " << kCancelBudget.count()
                        << " ms after the stream's client left";
}

// A job made with output_format=pdf answers its searchable PDF: the whole input, every page.
TEST_F(JobsTest, APdfJobAnswersItsSearchablePdf) {
  const pdf::testing::TestDocument ten = pdf::testing::MakeScannedDocument("jobs_pdf");
  ASSERT_FALSE(ten.pdf.empty());
  const std::string input = testing::ReadFileOrDie(ten.pdf);
  const std::string id = PostJob(port(), {{"file", input, "ten.pdf"},
                                          {"output_format", "pdf"},
                                          {"page_range", "0"},
                                          {"pdfa", "true"}});
  ASSERT_FALSE(id.empty());
  const Json done = PollJob(port(), id, Finished);
  ASSERT_EQ(done["status"], "succeeded") << done.dump();
  const Response result = Send(port(), MakeRequest(bhttp::verb::get, "/jobs/" + id + "/result"));
  ASSERT_EQ(result.result_int(), 200) << result.body();
  EXPECT_EQ(Header(result, "Content-Type"), "application/pdf");
  EXPECT_EQ(result.body().rfind("%PDF-", 0), 0u);
  EXPECT_GT(result.body().size(), input.size());  // the input and its layer
  EXPECT_NE(result.body().find("<pdfaid:part>2</pdfaid:part>"), std::string::npos);
}

// A finished job answers again in any format without reading its pages again, and draws each of
// its pages for a viewer to put the boxes over.
TEST_F(JobsTest, AFinishedJobIsRenderedAgainAndItsPagesAreDrawn) {
  const pdf::testing::TestDocument ten = pdf::testing::MakeScannedDocument("jobs_again");
  ASSERT_FALSE(ten.pdf.empty());
  const std::string input = testing::ReadFileOrDie(ten.pdf);
  const std::vector<FormField> fields = {{"file", input, "ten.pdf"}, {"page_range", "0-1"}};
  const std::string id = PostJob(port(), fields);
  ASSERT_FALSE(id.empty());
  ASSERT_EQ(PollJob(port(), id, Finished)["status"], "succeeded");
  const std::string result = "/jobs/" + id + "/result";
  const Json json = GetJson(port(), result);
  ASSERT_EQ(json["format"], "json");
  ASSERT_EQ(json["pages"].size(), 2u);

  const long read = PagesRead(port());
  std::map<std::string, Json> again;
  for (const std::string format : {"markdown", "html", "text", "hocr", "alto"}) {
    again[format] = GetJson(port(), result + "?output_format=" + format);
    EXPECT_EQ(again[format]["format"], format);
    EXPECT_EQ(again[format]["results"], json["results"]) << format;
  }
  const Response pdf =
      Send(port(), MakeRequest(bhttp::verb::get, result + "?output_format=pdf&unrelated=1"));
  EXPECT_EQ(pdf.result_int(), 200) << pdf.body();
  EXPECT_EQ(Header(pdf, "Content-Type"), "application/pdf");
  EXPECT_EQ(pdf.body().rfind("%PDF-", 0), 0u);
  EXPECT_EQ(PagesRead(port()), read) << "rendering again read the pages again";
  // What a job created in that format answers (a synchronous answer reads the same pages).
  for (const auto& [format, answer] : again) {
    std::vector<FormField> asked = fields;
    asked.push_back({"output_format", format});
    EXPECT_EQ(answer["output"], BodyJson(Send(port(), FormRequest(asked)))["output"]) << format;
  }
  EXPECT_NE(again["hocr"]["output"].get<std::string>().find("ocrx_word"), std::string::npos);
  for (const std::string bad : {"?output_format=docx", "?output_format=%zz"}) {
    const Response res = Send(port(), MakeRequest(bhttp::verb::get, result + bad));
    EXPECT_EQ(res.result_int(), 400) << bad;
    EXPECT_EQ(ErrorCodeOf(res), "invalid_option") << bad;
  }
  EXPECT_NE(
      BodyJson(Send(port(), MakeRequest(bhttp::verb::get, result + "?output_format=docx")))["error"]
          .get<std::string>()
          .find("markdown"),
      std::string::npos);

  // The page as it was read, at most 1600 pixels on its longer side by default.
  const std::string pages = "/jobs/" + id + "/pages/";
  const Response drawn = Send(port(), MakeRequest(bhttp::verb::get, pages + "1/image"));
  ASSERT_EQ(drawn.result_int(), 200) << drawn.body();
  EXPECT_EQ(Header(drawn, "Content-Type"), "image/jpeg");
  const cv::Mat image = cv::imdecode(cv::Mat(1, static_cast<int>(drawn.body().size()), CV_8U,
                                             const_cast<char*>(drawn.body().data())),
                                     cv::IMREAD_GRAYSCALE);
  ASSERT_FALSE(image.empty());
  const Json& page = json["pages"][1];
  const double width = page["width"];
  const double height = page["height"];
  EXPECT_NEAR(std::max(image.cols, image.rows), std::min(1600.0, std::max(width, height)), 1);
  EXPECT_NEAR(image.cols / static_cast<double>(image.rows), width / height, 0.01);
  // Ink under the boxes, scaled from the page's pixels to the image's: each line is darker than
  // the page around it.
  const double scale = image.cols / width;
  const double paper = cv::mean(image)[0];
  for (const Json& line : page["results"]) {
    const Json& box = line["bounding_box"];
    const cv::Rect r(cv::Point(static_cast<int>(box[0][0].get<double>() * scale),
                               static_cast<int>(box[0][1].get<double>() * scale)),
                     cv::Point(static_cast<int>(box[2][0].get<double>() * scale),
                               static_cast<int>(box[2][1].get<double>() * scale)));
    const cv::Rect inside = r & cv::Rect(0, 0, image.cols, image.rows);
    ASSERT_GT(inside.area(), 0) << line.dump();
    EXPECT_LT(cv::mean(image(inside))[0], paper - 10) << line["text"];
  }
  const Response small =
      Send(port(), MakeRequest(bhttp::verb::get, pages + "0/image?max_side=300"));
  ASSERT_EQ(small.result_int(), 200);
  const cv::Mat thumb = cv::imdecode(cv::Mat(1, static_cast<int>(small.body().size()), CV_8U,
                                             const_cast<char*>(small.body().data())),
                                     cv::IMREAD_COLOR);
  // At most 300: a page read from a small scan is drawn at its own size, not blown up.
  const double side0 =
      std::max(json["pages"][0]["width"].get<double>(), json["pages"][0]["height"].get<double>());
  EXPECT_NEAR(std::max(thumb.cols, thumb.rows), std::min(300.0, side0), 1);

  const Response past = Send(port(), MakeRequest(bhttp::verb::get, pages + "10/image"));
  EXPECT_EQ(past.result_int(), 404);
  EXPECT_EQ(BodyJson(past)["error"],
            "job " + id + ": the document has 10 pages (from 0); there is no page 10");
  for (const std::string bad : {"x/image", "-1/image", "1.5/image"}) {
    const Response res = Send(port(), MakeRequest(bhttp::verb::get, pages + bad));
    EXPECT_EQ(res.result_int(), 404) << bad;
    EXPECT_EQ(ErrorCodeOf(res), "not_found") << bad;
  }
  for (const std::string bad :
       {"0/image?max_side=5", "0/image?max_side=big", "0/image?max_side="}) {
    const Response res = Send(port(), MakeRequest(bhttp::verb::get, pages + bad));
    EXPECT_EQ(res.result_int(), 400) << bad;
    EXPECT_EQ(ErrorCodeOf(res), "invalid_option") << bad;
  }
  const Response unknown =
      Send(port(),
           MakeRequest(bhttp::verb::get, "/jobs/0123456789abcdef0123456789abcdef/pages/0/image"));
  EXPECT_EQ(unknown.result_int(), 404);
}

TEST_F(JobsTest, UnknownAndMalformedIdsAre404) {
  for (const std::string target :
       {"/jobs/0123456789abcdef0123456789abcdef", "/jobs/0123456789abcdef0123456789abcdef/result",
        "/jobs/0123456789abcdef0123456789abcdef/events", "/jobs/xyz", "/jobs/..%2f..%2fetc",
        "/jobs/0123456789ABCDEF0123456789ABCDEF"}) {
    const Response res = Send(port(), MakeRequest(bhttp::verb::get, target));
    EXPECT_EQ(res.result_int(), 404) << target;
    EXPECT_EQ(ErrorCodeOf(res), "not_found") << target;
  }
  // An encoded NUL is refused before routing.
  const Response nul = Send(port(), MakeRequest(bhttp::verb::get, "/jobs/%00"));
  EXPECT_EQ(nul.result_int(), 400);
  EXPECT_EQ(ErrorCodeOf(nul), "invalid_request");
  const Response del =
      Send(port(), MakeRequest(bhttp::verb::delete_, "/jobs/0123456789abcdef0123456789abcdef"));
  EXPECT_EQ(del.result_int(), 404);
  const Response put = Send(port(), MakeRequest(bhttp::verb::put, "/jobs/abc"));
  EXPECT_EQ(put.result_int(), 405);
  EXPECT_EQ(Header(put, "Allow"), "GET, HEAD, DELETE");
  const Response json = Send(port(), MakeRequest(bhttp::verb::post, "/jobs", R"({"image":"x"})"));
  EXPECT_EQ(json.result_int(), 415);
}

// --max-jobs bounds the documents in progress; --job-ttl frees finished ones.
TEST(JobLimitsTest, MaxJobsAndExpiry) {
  std::string missing;
  if (!pdf::testing::HaveTools(&missing))
    GTEST_SKIP() << "PDF tools missing: " << missing;
  const pdf::testing::TestDocument ten = pdf::testing::MakeScannedDocument("jobs_limits");
  ASSERT_FALSE(ten.pdf.empty());
  const std::string pdf = testing::ReadFileOrDie(ten.pdf);
  ServerProcess server;
  ASSERT_TRUE(server.Start({"--max-jobs", "1", "--job-ttl", "1"}));
  const std::string id = PostJob(server.port(), {{"file", pdf, "ten.pdf"}});
  ASSERT_FALSE(id.empty());
  const Response full = Send(server.port(), FormRequest({{"file", pdf, "ten.pdf"}}, "/jobs"));
  EXPECT_EQ(full.result_int(), 503);
  EXPECT_EQ(ErrorCodeOf(full), "server_busy");
  EXPECT_EQ(Header(full, "Retry-After"), "1");
  const Response stream =
      Send(server.port(), FormRequest({{"file", pdf, "ten.pdf"}, {"stream", "true"}}));
  EXPECT_EQ(stream.result_int(), 503) << "a stream is a document in progress too";

  const Json done = PollJob(server.port(), id, Finished);
  EXPECT_EQ(done["status"], "succeeded");
  EXPECT_EQ(GetJson(server.port(), "/jobs/" + id + "/result")["page_count"], 10);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  const Response expired = Send(server.port(), MakeRequest(bhttp::verb::get, "/jobs/" + id));
  EXPECT_EQ(expired.result_int(), 404);
  EXPECT_EQ(server.Stop(), 0);
}

// SIGTERM lets a running job finish (its watcher sees "done") before the server exits.
TEST(JobShutdownTest, SigtermLetsARunningJobFinish) {
  std::string missing;
  if (!pdf::testing::HaveTools(&missing))
    GTEST_SKIP() << "PDF tools missing: " << missing;
  const pdf::testing::TestDocument ten = pdf::testing::MakeScannedDocument("jobs_sigterm");
  ASSERT_FALSE(ten.pdf.empty());
  ServerProcess server;
  ASSERT_TRUE(server.Start({}));
  const std::string id =
      PostJob(server.port(), {{"file", testing::ReadFileOrDie(ten.pdf), "ten.pdf"}});
  ASSERT_FALSE(id.empty());
  bool signalled = false;
  const std::vector<SseEvent> events =
      ReadEvents(server.port(), "/jobs/" + id + "/events", [&](const SseEvent& e) {
        if (!signalled && e.name == "page") {
          server.Signal(SIGTERM);
          signalled = true;
        }
        return true;
      });
  ASSERT_TRUE(signalled);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().name, "done");
  EXPECT_EQ(server.Wait(std::chrono::seconds(60)), 0);
}

// Past --drain-timeout, SIGTERM cancels the job; a stream's client gets an error line.
TEST(JobShutdownTest, AStreamCutByShutdownEndsWithAnErrorLine) {
  std::string missing;
  if (!pdf::testing::HaveTools(&missing))
    GTEST_SKIP() << "PDF tools missing: " << missing;
  ASSERT_FALSE(LongDocument().bytes.empty());
  ServerProcess server;
  ASSERT_TRUE(server.Start({"--drain-timeout", "1"}));
  std::vector<Json> lines;
  ReadLines(server.port(),
            FormRequest({{"file", LongDocument().bytes, "long.pdf"}, {"stream", "true"}}),
            [&](const std::string& line) {
              lines.push_back(Json::parse(line));
              if (lines.size() == 1)
                server.Signal(SIGTERM);
              return true;
            });
  ASSERT_GE(lines.size(), 2u);
  EXPECT_LT(lines.size(), kLongPages + 1u);
  EXPECT_EQ(lines.back()["success"], false);
  EXPECT_EQ(lines.back()["code"], "not_ready");
  EXPECT_EQ(server.Wait(std::chrono::seconds(60)), 0);
}

// Pages this server has read (its /metrics counter).
// Two servers on one Redis (--redis), each with one worker: a job posted to one is answered by
// both, read by both, and cancelled from either. The same paths under the sanitizer builds; the
// kill -9, Redis restart and nginx cases are tests/deploy/redis_jobs_test.py.
class SharedJobsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string missing;
    if (!pdf::testing::HaveTools(&missing))
      GTEST_SKIP() << "PDF tools missing: " << missing;
    if (!testing::HaveRedisServer())
      GTEST_SKIP() << testing::kRedisServer << " is not installed (scripts/bootstrap installs it)";
    ASSERT_FALSE(LongDocument().bytes.empty());
    ASSERT_TRUE(redis_.Start());
    const std::vector<std::string> flags = {"--threads",   "1", "--redis",           redis_.url(),
                                            "--job-lease", "2", "--request-timeout", "600"};
    ASSERT_TRUE(a_.Start(flags));
    ASSERT_TRUE(b_.Start(flags));
  }

  void TearDown() override {
    if (a_.port() != 0) {
      EXPECT_EQ(a_.Stop(), 0);
    }
    if (b_.port() != 0) {
      EXPECT_EQ(b_.Stop(), 0);
    }
  }

  testing::RedisProcess redis_;
  ServerProcess a_;
  ServerProcess b_;
};

TEST_F(SharedJobsTest, BothServersReadAndAnswerOneJob) {
  const long a_before = PagesRead(a_.port());
  const long b_before = PagesRead(b_.port());
  const std::vector<FormField> fields = {
      {"file", LongDocument().bytes, "long.pdf"}, {"page_range", "0-9"}, {"output_format", "text"}};
  const std::string id = PostJob(a_.port(), fields);
  ASSERT_FALSE(id.empty());
  const std::vector<SseEvent> events = ReadEvents(b_.port(), "/jobs/" + id + "/events");
  ASSERT_FALSE(events.empty());
  int pages = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].id, static_cast<int>(i) + 1);
    if (events[i].name == "page") {
      EXPECT_EQ(events[i].data["index"], pages);
      ASSERT_FALSE(events[i].data["results"].empty());
      EXPECT_EQ(WithoutSpaces(events[i].data["results"][0]["text"]),
                WithoutSpaces(LongDocument().pages[static_cast<std::size_t>(pages)][0][0]))
          << "page " << pages;
      ++pages;
    }
  }
  EXPECT_EQ(pages, 10);
  EXPECT_EQ(events.back().name, "done");

  const Json status = GetJson(a_.port(), "/jobs/" + id);
  EXPECT_EQ(status["status"], "succeeded");
  EXPECT_EQ(status["pages_done"], 10);
  Json result = GetJson(b_.port(), "/jobs/" + id + "/result");
  Json sync = BodyJson(Send(a_.port(), FormRequest(fields)));
  ASSERT_EQ(sync["success"], true);
  result.erase("processing_time");
  sync.erase("processing_time");
  EXPECT_EQ(result, sync);
  // Either server renders the job again and draws its pages from what Redis keeps.
  const std::string markdown = "/jobs/" + id + "/result?output_format=markdown";
  const Json a_markdown = GetJson(a_.port(), markdown);
  EXPECT_EQ(a_markdown["format"], "markdown");
  EXPECT_EQ(a_markdown["output"], GetJson(b_.port(), markdown)["output"]);
  const std::string image = "/jobs/" + id + "/pages/3/image?max_side=500";
  const Response a_image = Send(a_.port(), MakeRequest(bhttp::verb::get, image));
  const Response b_image = Send(b_.port(), MakeRequest(bhttp::verb::get, image));
  EXPECT_EQ(a_image.result_int(), 200);
  EXPECT_EQ(Header(a_image, "Content-Type"), "image/jpeg");
  EXPECT_EQ(a_image.body(), b_image.body());

  // Every page was read once, and both servers read some (the synchronous answer adds 10 on A).
  const long a_pages = PagesRead(a_.port()) - a_before - 10;
  const long b_pages = PagesRead(b_.port()) - b_before;
  std::printf("pages read: A %ld, B %ld\n", a_pages, b_pages);
  EXPECT_EQ(a_pages + b_pages, 10);
  EXPECT_GT(a_pages, 0);
  EXPECT_GT(b_pages, 0);
}

TEST_F(SharedJobsTest, DeleteOnOneServerStopsTheJobOnBoth) {
  const std::string id = PostJob(a_.port(), {{"file", LongDocument().bytes, "long.pdf"}});
  ASSERT_FALSE(id.empty());
  const Json running = PollJob(b_.port(), id, [](const Json& s) { return s["pages_done"] >= 1; });
  ASSERT_EQ(running["status"], "running") << running.dump();
  const Response deleted = Send(b_.port(), MakeRequest(bhttp::verb::delete_, "/jobs/" + id));
  ASSERT_EQ(deleted.result_int(), 200);
  EXPECT_EQ(BodyJson(deleted)["status"], "cancelled");
  EXPECT_EQ(GetJson(a_.port(), "/jobs/" + id)["status"], "cancelled");
  // Within a cancellation poll (200 ms) and a recognition batch, both servers' workers are free.
  EXPECT_GE(WaitIdleMs(a_.port(), kCancelBudget + std::chrono::milliseconds(400)), 0);
  EXPECT_GE(WaitIdleMs(b_.port(), kCancelBudget + std::chrono::milliseconds(400)), 0);
  const long a_pages = PagesRead(a_.port());
  const long b_pages = PagesRead(b_.port());
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(PagesRead(a_.port()), a_pages);
  EXPECT_EQ(PagesRead(b_.port()), b_pages);
  const Response result = Send(a_.port(), MakeRequest(bhttp::verb::get, "/jobs/" + id + "/result"));
  EXPECT_EQ(result.result_int(), 409);
}

}  // namespace
}  // namespace ocr::http
