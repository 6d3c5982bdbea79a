#include "http/bad_requests.h"

#include <sstream>
#include <utility>

#include <boost/beast/http.hpp>

#include "common/text.h"
#include "http/error_mapping.h"

namespace ocr::http {
namespace {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

// "... HTTP/d.d" at the end of a request line: a well-formed version this server does not speak.
bool NamesOtherHttpVersion(std::string_view line) {
  if (line.size() < 8)
    return false;
  const std::string_view v = line.substr(line.size() - 8);
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  return v.starts_with("HTTP/") && digit(v[5]) && v[6] == '.' && digit(v[7]);
}

}  // namespace

std::string_view FirstLine(const beast::flat_buffer& buffer) {
  const auto data = buffer.data();
  const std::string_view bytes(static_cast<const char*>(data.data()), data.size());
  return bytes.substr(0, bytes.find("\r\n"));
}

std::optional<Reply> UnparsableReply(beast::error_code ec, std::string_view first_line) {
  if (ec.category() != bhttp::make_error_code(bhttp::error::end_of_stream).category() ||
      ec == bhttp::error::end_of_stream) {
    return std::nullopt;
  }
  using E = bhttp::error;
  std::string why;
  switch (static_cast<E>(ec.value())) {
    case E::header_limit:
      return ErrorReply(431, "header_too_large",
                        "the request line and headers are over " +
                            std::to_string(kMaxHeaderBytes / 1024) +
                            " KB together; send large values in the body");
    case E::bad_version:
      if (NamesOtherHttpVersion(first_line)) {
        return ErrorReply(505, "http_version_not_supported",
                          "this server speaks HTTP/1.1 and HTTP/1.0; the request is " +
                              PrintableEcho(first_line.substr(first_line.size() - 8)));
      }
      why = "the request line is not METHOD TARGET HTTP/1.1";
      break;
    case E::bad_method:
      why = "the request line does not start with a method (a token such as GET)";
      break;
    case E::bad_target:
      why =
          "the request target is empty or has a character a URL cannot hold (a space or a "
          "control character)";
      break;
    case E::bad_field:
      why = "a header line is not NAME: VALUE";
      break;
    case E::bad_value:
      why = "a header value has a control character";
      break;
    case E::bad_line_ending:
      why = "a line does not end with CRLF";
      break;
    case E::bad_content_length:
      why =
          "Content-Length must be one non-negative decimal number (repeated with different "
          "values, or given with Transfer-Encoding: chunked, it is refused)";
      break;
    case E::bad_transfer_encoding:
      why = "Transfer-Encoding cannot be repeated or combined with Content-Length (RFC 9112 6.1)";
      break;
    case E::bad_chunk:
    case E::bad_chunk_extension:
      why =
          "a chunk of the chunked body is malformed (a chunk starts with its size in hex and "
          "CRLF)";
      break;
    case E::bad_obs_fold:
      why = "a header is folded over several lines (obsolete, RFC 9112 5.2)";
      break;
    case E::partial_message:
      why = "the request ended before it was complete";
      break;
    default:
      why = "the request is not valid HTTP/1.1 (" + ec.message() + ")";
      break;
  }
  return ErrorReply(400, "invalid_request", why + "; the connection is closed");
}

Reply TooManyConnectionsReply() {
  Reply reply = ErrorReply(503, "server_busy", "too many open connections; retry after a second");
  reply.retry_after = true;
  return reply;
}

const std::string& TooManyConnections() {
  static const std::string bytes = [] {
    Reply reply = TooManyConnectionsReply();
    bhttp::response<bhttp::string_body> res(bhttp::status::service_unavailable, 11);
    res.set(bhttp::field::content_type, reply.content_type);
    res.set(bhttp::field::retry_after, "1");
    res.keep_alive(false);
    res.body() = std::move(reply.body);
    res.prepare_payload();
    std::ostringstream out;
    out << res;
    return out.str();
  }();
  return bytes;
}

}  // namespace ocr::http
