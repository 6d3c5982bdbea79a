// The HTTP server as a client sees it: the real onnxocr binary with the real models, started as
// a child process on an ephemeral port, spoken to over real sockets with Beast's sync client.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "http/server_client.h"
#include "support/render_text.h"
#include "support/test_paths.h"

namespace ocr::http {
namespace {

using namespace testing_support;  // NOLINT(google-build-using-namespace): test helpers

// ---------------------------------------------------------------------------------------------
// One server shared by the tests that need no special flags.

class ServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const auto png = testing::RenderTextPng("Order 7781 shipped");
    if (!png.empty())
      png_ = new std::string(testing::ReadFileOrDie(png));
    server_ = new ServerProcess();
    const auto started = server_->Start({"--threads", "2", "--max-body-mb", "1"});
    if (!started) {
      start_error_ = new std::string(started.message());
      delete server_;
      server_ = nullptr;
    }
  }

  static void TearDownTestSuite() {
    if (server_ != nullptr) {
      const int code = server_->Stop();
      EXPECT_EQ(code, 0) << server_->log();
      delete server_;
      server_ = nullptr;
    }
    delete png_;
    png_ = nullptr;
    delete start_error_;
    start_error_ = nullptr;
  }

  void SetUp() override { ASSERT_NE(server_, nullptr) << (start_error_ ? *start_error_ : ""); }

  unsigned short port() const { return server_->port(); }

  const std::string& Png() {
    if (png_ == nullptr) {
      static const std::string kEmpty;
      return kEmpty;
    }
    return *png_;
  }

  void ExpectOneOrderLine(const Response& res) {
    ASSERT_EQ(res.result_int(), 200u) << res.body();
    EXPECT_EQ(res[bhttp::field::content_type], "application/json");
    const Json j = BodyJson(res);
    ASSERT_TRUE(j.is_object()) << res.body();
    std::vector<std::string> keys;
    for (const auto& item : j.items())
      keys.push_back(item.key());
    EXPECT_EQ(keys, (std::vector<std::string>{"processing_time", "results"}));
    EXPECT_TRUE(j["processing_time"].is_number());
    ASSERT_EQ(j["results"].size(), 1u) << res.body();
    EXPECT_EQ(WithoutSpaces(j["results"][0].value("text", "")), "Order7781shipped");
  }

  static inline ServerProcess* server_ = nullptr;
  static inline std::string* png_ = nullptr;
  static inline std::string* start_error_ = nullptr;
};

#define SKIP_WITHOUT_PNG() \
  if (Png().empty())       \
  GTEST_SKIP() << "pango-view is not installed; cannot render test text"

TEST_F(ServerTest, HealthzAndReadyz) {
  const Response health = Send(port(), MakeRequest(bhttp::verb::get, "/healthz"));
  EXPECT_EQ(health.result_int(), 200u);
  EXPECT_EQ(health.body(), R"({"status":"ok"})");
  EXPECT_EQ(health[bhttp::field::content_type], "application/json");
  EXPECT_FALSE(health["X-Request-Id"].empty());

  const Response ready = Send(port(), MakeRequest(bhttp::verb::get, "/readyz"));
  EXPECT_EQ(ready.result_int(), 200u);
  EXPECT_EQ(ready.body(), R"({"status":"ready"})");
}

TEST_F(ServerTest, EchoesSaneRequestIdAndReplacesOthers) {
  Request req = MakeRequest(bhttp::verb::get, "/healthz");
  req.set("X-Request-Id", "abc-123_x.y");
  EXPECT_EQ(Send(port(), req)["X-Request-Id"], "abc-123_x.y");
  req.set("X-Request-Id", "bad id with spaces");
  const Response res = Send(port(), req);
  EXPECT_NE(res["X-Request-Id"], "bad id with spaces");
  EXPECT_FALSE(res["X-Request-Id"].empty());
}

TEST_F(ServerTest, OcrReadsRenderedText) {
  SKIP_WITHOUT_PNG();
  ExpectOneOrderLine(Send(port(), MakeRequest(bhttp::verb::post, "/ocr", OcrBody(Png()))));
}

TEST_F(ServerTest, OcrApiAliasAcceptsDataUri) {
  SKIP_WITHOUT_PNG();
  const std::string body =
      Json{{"image", "data:image/png;base64," + EncodeBase64(Png())}, {"cls", false}}.dump();
  ExpectOneOrderLine(Send(port(), MakeRequest(bhttp::verb::post, "/ocr_api", body)));
}

TEST_F(ServerTest, TwoRequestsOnOneKeepAliveConnection) {
  SKIP_WITHOUT_PNG();
  net::io_context ioc;
  tcp::socket socket = Connect(ioc, port());
  const Response first = Exchange(socket, MakeRequest(bhttp::verb::post, "/ocr", OcrBody(Png())));
  ExpectOneOrderLine(first);
  EXPECT_TRUE(first.keep_alive());
  ExpectOneOrderLine(Exchange(socket, MakeRequest(bhttp::verb::post, "/ocr", OcrBody(Png()))));
}

struct ErrorCase {
  const char* name;
  std::string target;
  std::string body;
  std::string content_type;
  unsigned status;
  std::string code;
};

TEST_F(ServerTest, ClientErrorsHaveTheDocumentedShape) {
  std::string random_bytes;
  for (int i = 0; i < 256; ++i)
    random_bytes.push_back(static_cast<char>((i * 37 + 11) & 0xFF));
  const std::vector<ErrorCase> cases = {
      {"invalid json", "/ocr", "{\"image\": ", "application/json", 400, "invalid_json"},
      {"not an object", "/ocr", "[1,2]", "application/json", 400, "invalid_json"},
      {"missing image", "/ocr", R"({"cls": true})", "application/json", 400, "missing_field"},
      {"bad base64", "/ocr", R"({"image": "!!!not*base64"})", "application/json", 400,
       "invalid_base64"},
      {"drop_score 7", "/ocr", R"({"image": "aGk=", "drop_score": 7})", "application/json", 400,
       "invalid_option"},
      {"cls not bool", "/ocr", R"({"image": "aGk=", "cls": "yes"})", "application/json", 400,
       "invalid_option"},
      {"unknown model", "/ocr", R"({"image": "aGk=", "model": "nope"})", "application/json", 400,
       "invalid_option"},
      {"text/plain", "/ocr", "hello", "text/plain", 415, "unsupported_media_type"},
      {"form without file", "/ocr", "--x--", "multipart/form-data; boundary=x", 400,
       "missing_field"},
      {"form on the JSON alias", "/ocr_api", "--x--", "multipart/form-data; boundary=x", 415,
       "unsupported_media_type"},
      {"broken form", "/ocr", "no boundary here", "multipart/form-data; boundary=x", 400,
       "invalid_multipart"},
      {"random bytes", "/ocr", Json{{"image", EncodeBase64(random_bytes)}}.dump(),
       "application/json", 415, "unsupported_media_type"},
      {"pdf", "/ocr",
       Json{{"image", EncodeBase64("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n")}}.dump(),
       "application/json", 415, "unsupported_media_type"},
      {"huge png header", "/ocr_api",
       Json{{"image", EncodeBase64(PngHeaderOnly(60000, 60000))}}.dump(), "application/json", 422,
       "image_too_large"},
  };
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.name);
    const Response res =
        Send(port(), MakeRequest(bhttp::verb::post, c.target, c.body, c.content_type));
    EXPECT_EQ(res.result_int(), c.status) << res.body();
    EXPECT_EQ(ErrorCodeOf(res), c.code) << res.body();
    EXPECT_EQ(res[bhttp::field::content_type], "application/json");
    EXPECT_FALSE(res["X-Request-Id"].empty());
    const Json j = BodyJson(res);
    ASSERT_TRUE(j.is_object()) << res.body();
    EXPECT_EQ(j.value("success", true), false);
    EXPECT_TRUE(j["error"].is_string());
    if (c.code == "missing_field") {
      EXPECT_NE(j["error"].get<std::string>().find("image"), std::string::npos);
    }
    if (c.name == std::string("pdf")) {
      EXPECT_NE(j["error"].get<std::string>().find("PDF"), std::string::npos);
    }
  }
}

TEST_F(ServerTest, UnknownRouteIs404AndWrongMethodIs405) {
  const Response missing = Send(port(), MakeRequest(bhttp::verb::get, "/nope"));
  EXPECT_EQ(missing.result_int(), 404u);
  EXPECT_EQ(ErrorCodeOf(missing), "not_found");

  const Response wrong = Send(port(), MakeRequest(bhttp::verb::delete_, "/ocr"));
  EXPECT_EQ(wrong.result_int(), 405u);
  EXPECT_EQ(ErrorCodeOf(wrong), "method_not_allowed");
  EXPECT_EQ(wrong[bhttp::field::allow], "POST");
}

TEST_F(ServerTest, OversizedContentLengthIs413WithoutReadingTheBody) {
  net::io_context ioc;
  tcp::socket socket = Connect(ioc, port());
  const std::string head =
      "POST /ocr HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: 2000000\r\n\r\n";
  net::write(socket, net::buffer(head));  // no body is ever sent
  beast::flat_buffer buffer;
  Response res;
  bhttp::read(socket, buffer, res);
  EXPECT_EQ(res.result_int(), 413u);
  EXPECT_EQ(ErrorCodeOf(res), "payload_too_large");
  EXPECT_FALSE(res.keep_alive());
}

TEST_F(ServerTest, AnswersExpect100ContinueBeforeTheBody) {
  net::io_context ioc;
  tcp::socket socket = Connect(ioc, port());
  const std::string body = R"({"cls": true})";
  const std::string head =
      "POST /ocr HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Expect: 100-continue\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n";
  net::write(socket, net::buffer(head));
  beast::flat_buffer buffer;
  bhttp::response<bhttp::empty_body> interim;
  bhttp::read(socket, buffer, interim);
  EXPECT_EQ(interim.result(), bhttp::status::continue_);
  net::write(socket, net::buffer(body));
  Response res;
  bhttp::read(socket, buffer, res);
  EXPECT_EQ(res.result_int(), 400u);
  EXPECT_EQ(ErrorCodeOf(res), "missing_field");
}

// ---------------------------------------------------------------------------------------------
// Servers with their own flags or lifecycles.

TEST(ServerLifecycleTest, SigtermLetsTheInFlightRequestFinishThenExitsZero) {
  // Many lines, so that inference is still running when the signal arrives.
  std::string text;
  for (int i = 0; i < 24; ++i)
    text += "Order " + std::to_string(7700 + i) + " shipped today\n";
  const auto png_path = testing::RenderTextPng(text);
  if (png_path.empty())
    GTEST_SKIP() << "pango-view is not installed";
  ServerProcess server;
  ASSERT_TRUE(server.Start({"--threads", "1"}));
  net::io_context ioc;
  tcp::socket socket = Connect(ioc, server.port());
  bhttp::write(socket,
               MakeRequest(bhttp::verb::post, "/ocr", OcrBody(testing::ReadFileOrDie(png_path))));
  // Signal once a worker runs the request (a request still unread when the drain begins is not
  // in flight; sanitizer builds can take seconds to get there).
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (Send(server.port(), MakeRequest(bhttp::verb::get, "/metrics", ""))
             .body()
             .find("\nonnxocr_in_flight_requests 1\n") == std::string::npos) {
    ASSERT_LT(std::chrono::steady_clock::now(), give_up) << "the request never reached a worker";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  server.Signal(SIGTERM);
  beast::flat_buffer buffer;
  Response res;
  bhttp::read(socket, buffer, res);
  EXPECT_EQ(res.result_int(), 200u) << res.body();
  EXPECT_FALSE(res.keep_alive());  // draining: the connection closes after the answer
  EXPECT_GE(BodyJson(res)["results"].size(), 20u) << res.body();
  // The answered connection does not hold the drain (30 s) although this client keeps it open.
  EXPECT_EQ(server.Wait(std::chrono::seconds(15)), 0) << server.log();
  // The answer was written after the drain began, so the request really was in flight.
  const std::string log = server.log();
  const size_t drain_at = log.find("draining");
  const size_t answer_at = log.find(R"("path":"/ocr")");
  ASSERT_NE(drain_at, std::string::npos) << log;
  ASSERT_NE(answer_at, std::string::npos) << log;
  EXPECT_LT(drain_at, answer_at) << log;
}

// Sends `body` to POST /ocr from `clients` threads at once. Expects every answer to be 200 or
// 503 server_busy with Retry-After: 1, and returns how many were 200 and how many 503.
std::pair<int, int> SendConcurrently(unsigned short port, const std::string& body, int clients) {
  std::vector<Response> answers(static_cast<size_t>(clients));
  {
    std::vector<std::jthread> threads;
    for (int i = 0; i < clients; ++i) {
      threads.emplace_back([&, i] {
        answers[static_cast<size_t>(i)] = Send(port, MakeRequest(bhttp::verb::post, "/ocr", body));
      });
    }
  }
  int ok = 0;
  int busy = 0;
  for (const Response& res : answers) {
    if (res.result_int() == 200) {
      ++ok;
      continue;
    }
    EXPECT_EQ(res.result_int(), 503u) << res.body();
    EXPECT_EQ(ErrorCodeOf(res), "server_busy");
    EXPECT_EQ(res[bhttp::field::retry_after], "1");
    ++busy;
  }
  return {ok, busy};
}

TEST(ServerLifecycleTest, FullQueueAnswers503WithRetryAfter) {
  const auto png_path = testing::RenderTextPng("Order 7781 shipped");
  if (png_path.empty())
    GTEST_SKIP() << "pango-view is not installed";
  const std::string body = OcrBody(testing::ReadFileOrDie(png_path));
  ServerProcess server;
  ASSERT_TRUE(server.Start({"--threads", "1", "--queue-size", "1"}));
  constexpr int kClients = 8;
  const auto [ok, busy] = SendConcurrently(server.port(), body, kClients);
  EXPECT_GE(ok, 1);
  EXPECT_GE(busy, 1);
  EXPECT_EQ(ok + busy, kClients);
  EXPECT_EQ(server.Stop(), 0) << server.log();
}

TEST(ServerLifecycleTest, MemoryBudgetRefusesWhatItCannotHold) {
  std::string text;
  for (int i = 0; i < 24; ++i)
    text += "Invoice " + std::to_string(4400 + i) + " paid in full\n";
  const auto png_path = testing::RenderTextPng(text);
  if (png_path.empty())
    GTEST_SKIP() << "pango-view is not installed";
  const std::string body = OcrBody(testing::ReadFileOrDie(png_path));
  ServerProcess server;
  // Each of these requests is estimated at about 100 MB (96 MB working set plus its pixels), so
  // the 150 MB budget holds one at a time.
  ASSERT_TRUE(server.Start({"--threads", "2", "--memory-budget-mb", "150"}));

  // 6000 x 6000 needs 6000 * 6000 * 6 bytes plus the working set: more than the whole budget,
  // refused from the header alone.
  const Response big = Send(
      server.port(), MakeRequest(bhttp::verb::post, "/ocr", OcrBody(PngHeaderOnly(6000, 6000))));
  EXPECT_EQ(big.result_int(), 422u) << big.body();
  EXPECT_EQ(ErrorCodeOf(big), "image_too_large");
  EXPECT_NE(big.body().find("memory budget of 150 MB"), std::string::npos) << big.body();

  const auto [ok, refused] = SendConcurrently(server.port(), body, 3);
  EXPECT_GE(ok, 1);
  EXPECT_GE(refused, 1);  // two workers were free, but the budget held one request
  // With the budget free again, a request goes through.
  EXPECT_EQ(Send(server.port(), MakeRequest(bhttp::verb::post, "/ocr", body)).result_int(), 200u);
  EXPECT_EQ(server.Stop(), 0) << server.log();
}

}  // namespace
}  // namespace ocr::http
