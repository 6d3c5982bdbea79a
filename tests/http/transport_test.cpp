// HTTP/1.1 transport behaviour of the real server: pipelining, chunked bodies, slow clients,
// and concurrent clients each getting their own results.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "http/server_client.h"
#include "support/render_text.h"
#include "support/test_paths.h"

namespace ocr::http {
namespace {

using namespace testing_support;  // NOLINT(google-build-using-namespace): test helpers

TEST(TransportTest, PipelinedRequestsAreAnsweredInOrder) {
  ServerProcess server;
  ASSERT_TRUE(server.Start({}));
  net::io_context ioc;
  tcp::socket socket = Connect(ioc, server.port());
  const std::string two =
      "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n";
  net::write(socket, net::buffer(two));
  beast::flat_buffer buffer;
  Response first;
  Response second;
  bhttp::read(socket, buffer, first);
  bhttp::read(socket, buffer, second);
  EXPECT_EQ(first.result_int(), 200);
  EXPECT_EQ(first.body(), R"({"status":"ok"})");
  EXPECT_EQ(second.result_int(), 404);
  EXPECT_EQ(server.Stop(), 0);
}

TEST(TransportTest, ChunkedRequestBodyIsAccepted) {
  const auto png = testing::RenderTextPng("Order 7781 shipped");
  if (png.empty())
    GTEST_SKIP() << "pango-view not installed";
  ServerProcess server;
  ASSERT_TRUE(server.Start({}));
  Request req = MakeRequest(bhttp::verb::post, "/ocr", OcrBody(testing::ReadFileOrDie(png)));
  req.chunked(true);
  const Response res = Send(server.port(), std::move(req));
  ASSERT_EQ(res.result_int(), 200) << res.body();
  EXPECT_EQ(WithoutSpaces(BodyJson(res)["results"][0]["text"]), "Order7781shipped");
  EXPECT_EQ(server.Stop(), 0);
}

TEST(TransportTest, SlowClientIsCutOffAtTheReadTimeout) {
  ServerProcess server;
  ASSERT_TRUE(server.Start({"--read-timeout", "2"}));
  net::io_context ioc;
  tcp::socket socket = Connect(ioc, server.port());
  const std::string header = "POST /ocr HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n";
  const auto start = std::chrono::steady_clock::now();
  bool closed = false;
  // One byte every 200 ms: it would take 30 s to send everything.
  for (size_t i = 0; i < header.size() + 100 && !closed; ++i) {
    beast::error_code ec;
    const char byte = i < header.size() ? header[i] : 'x';
    net::write(socket, net::buffer(&byte, 1), ec);
    if (ec) {
      closed = true;
      break;
    }
    socket.non_blocking(true);
    char probe[256];
    const size_t n = socket.read_some(net::buffer(probe), ec);
    socket.non_blocking(false);
    if (ec == net::error::eof || ec == net::error::connection_reset || n > 0)
      closed = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(closed);
  EXPECT_LT(seconds, 6.0) << "the connection was held past --read-timeout";
  EXPECT_EQ(server.Stop(), 0);
}

// A kept-alive connection left idle is closed at --read-timeout (as nginx closes at its
// keepalive_timeout); a client that reuses it must reconnect. The debug log says which
// connection ended and why, which is how a client's "broken pipe" gets explained.
TEST(TransportTest, IdleKeepAliveConnectionIsClosedAtTheReadTimeoutWithTheReasonLogged) {
  ServerProcess server;
  ASSERT_TRUE(server.Start({"--read-timeout", "1", "--log-level", "debug"}));
  net::io_context ioc;
  tcp::socket socket = Connect(ioc, server.port());
  Request req = MakeRequest(bhttp::verb::get, "/healthz", "");
  req.set("X-Request-Id", "idle-keepalive-1");
  bhttp::write(socket, req);
  beast::flat_buffer buffer;
  Response res;
  bhttp::read(socket, buffer, res);
  ASSERT_EQ(res.result_int(), 200);
  ASSERT_TRUE(res.keep_alive());

  const auto start = std::chrono::steady_clock::now();
  char byte = 0;
  beast::error_code ec;
  socket.read_some(net::buffer(&byte, 1), ec);  // blocks until the server closes
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(ec, net::error::eof);
  EXPECT_GT(seconds, 0.5);
  EXPECT_LT(seconds, 5.0);
  EXPECT_EQ(server.Stop(), 0);
  EXPECT_NE(server.log().find("connection closed after request_id=idle-keepalive-1: reading a "
                              "request: The socket was closed due to a timeout"),
            std::string::npos)
      << server.log();
}

TEST(TransportTest, ConcurrentClientsGetTheirOwnResults) {
  const std::vector<std::string> texts = {"Alpha 1111", "Bravo 2222", "Delta 3333", "Kilo 4444"};
  std::vector<std::string> bodies;
  for (const auto& t : texts) {
    const auto png = testing::RenderTextPng(t);
    if (png.empty())
      GTEST_SKIP() << "pango-view not installed";
    bodies.push_back(OcrBody(testing::ReadFileOrDie(png)));
  }
  ServerProcess server;
  ASSERT_TRUE(server.Start({"--threads", "2", "--queue-size", "64"}));
  std::vector<std::thread> clients;
  std::vector<std::vector<std::string>> seen(texts.size());
  for (size_t c = 0; c < texts.size(); ++c) {
    clients.emplace_back([&, c] {
      net::io_context ioc;
      tcp::socket socket = Connect(ioc, server.port());
      for (int i = 0; i < 3; ++i) {
        const Response res = Exchange(socket, MakeRequest(bhttp::verb::post, "/ocr", bodies[c]));
        const Json j = BodyJson(res);
        seen[c].push_back(res.result_int() == 200 && j["results"].size() == 1
                              ? WithoutSpaces(j["results"][0]["text"])
                              : "status " + std::to_string(res.result_int()));
      }
    });
  }
  for (auto& t : clients)
    t.join();
  for (size_t c = 0; c < texts.size(); ++c) {
    for (const auto& got : seen[c])
      EXPECT_EQ(got, WithoutSpaces(texts[c]));
  }
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace ocr::http
