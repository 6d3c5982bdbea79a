// Fuzz target for the HTTP request path end to end, in process (no sockets): the input is what a
// client sends on one connection. Beast's request_parser reads requests from it one after the
// other (pipelining) with the server's header limit and a body limit, each goes through
// Api::Route, its work runs to completion (real OCR under the small limits of FuzzServerConfig) and
// returns all the memory it reserved, and the decorated reply must be well formed and survive
// serialization: the response parses back with the same status and body, so no reply can split
// the response stream. Each request's query also goes through the job routes' query parser.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include <boost/asio/io_context.hpp>
#include <boost/beast/_experimental/test/stream.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "api_support.h"
#include "fuzz_support.h"
#include "http/request_path.h"

namespace {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

// As in http/server.cpp (request line and headers); bodies stay small so each input is quick.
constexpr std::uint32_t kMaxHeaderBytes = 16 * 1024;
constexpr std::uint64_t kMaxBodyBytes = 1 << 20;
constexpr int kMaxRequestsPerInput = 4;

ocr::http::ApiRequest ToApiRequest(bhttp::request<bhttp::string_body>& req) {
  ocr::http::ApiRequest r;
  r.method = std::string(req.method_string());
  const std::string_view target(req.target().data(), req.target().size());
  const std::size_t question = target.find('?');
  r.path = std::string(target.substr(0, question));
  r.query = question == std::string_view::npos ? "" : std::string(target.substr(question + 1));
  r.content_type = std::string(req[bhttp::field::content_type]);
  r.if_none_match = std::string(req[bhttp::field::if_none_match]);
  r.origin = std::string(req[bhttp::field::origin]);
  r.last_event_id = std::string(req["Last-Event-ID"]);
  r.body = std::move(req.body());
  r.request_id = "fuzz";
  r.received = std::chrono::steady_clock::now();
  return r;
}

// Serializes the reply the way the server does and parses it back.
void CheckSerialized(const ocr::http::Reply& reply, unsigned version) {
  bhttp::response<bhttp::string_body> res(static_cast<bhttp::status>(reply.status), version);
  if (!reply.content_type.empty())
    res.set(bhttp::field::content_type, reply.content_type);
  for (const auto& [name, value] : reply.headers)
    res.set(name, value);
  if (!reply.allow.empty())
    res.set(bhttp::field::allow, reply.allow);
  res.body() = reply.body;
  res.prepare_payload();
  std::ostringstream wire;
  wire << res;
  const std::string bytes = wire.str();

  bhttp::response_parser<bhttp::string_body> parser;
  parser.eager(true);
  parser.body_limit(bytes.size());
  beast::error_code ec;
  const std::size_t used = parser.put(boost::asio::buffer(bytes), ec);
  OCR_FUZZ_CHECK(!ec && parser.is_done() && used == bytes.size());
  OCR_FUZZ_CHECK(parser.get().result_int() == reply.status);
  OCR_FUZZ_CHECK(parser.get().body() == reply.body);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  (void)ocr::fuzz::SharedApi();  // load the models before the first input is timed
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ocr::fuzz::FuzzApi fuzz_api = ocr::fuzz::SharedApi();
  boost::asio::io_context ioc;
  beast::test::stream stream(ioc, beast::string_view(reinterpret_cast<const char*>(data), size));
  stream.close_remote();  // the client has sent everything
  beast::flat_buffer buffer;
  for (int i = 0; i < kMaxRequestsPerInput; ++i) {
    bhttp::request_parser<bhttp::string_body> parser;
    parser.header_limit(kMaxHeaderBytes);
    parser.body_limit(kMaxBodyBytes);
    beast::error_code ec;
    bhttp::read(stream, buffer, parser, ec);
    if (ec)
      return 0;  // the server answers 413 or closes the connection: nothing reaches the Api
    bhttp::request<bhttp::string_body> req = parser.release();
    ocr::http::ApiRequest request = ToApiRequest(req);
    // The query parser of the job routes, on every query the fuzzer makes: a value never holds
    // the NUL that the decoder refuses.
    for (const std::string_view name : {"output_format", "max_side", ""}) {
      const auto value = ocr::http::QueryValue(request.query, name);
      OCR_FUZZ_CHECK(!value.ok() || !value->has_value() ||
                     (*value)->find('\0') == std::string::npos);
    }
    ocr::http::Routed routed = fuzz_api.api.Route(request);
    OCR_FUZZ_CHECK(!routed.route.empty());
    OCR_FUZZ_CHECK(routed.reply.has_value() != static_cast<bool>(routed.work));
    ocr::http::Reply reply =
        routed.reply ? *std::move(routed.reply) : ocr::fuzz::RunWork(fuzz_api, routed.work);
    ocr::fuzz::CheckReply(reply);
    ocr::fuzz::FinishJobs(fuzz_api, reply);
    OCR_FUZZ_CHECK(fuzz_api.budget.reserved() == 0);  // finished work holds no memory
    fuzz_api.api.Decorate(reply, request);
    CheckSerialized(reply, req.version());
    if (!req.keep_alive())
      return 0;
  }
  return 0;
}
