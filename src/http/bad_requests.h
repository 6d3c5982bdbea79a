// The answers a connection gets without a route: to a request the HTTP parser refuses (400
// invalid_request saying what was wrong, 431, 505; RFC 9112: a server answers rather than
// guess) and to a connection over --max-connections (503 server_busy).
// Thread-safety: pure functions; the bytes of TooManyConnections are built once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include "http/reply.h"

namespace ocr::http {

// Request line and headers together; larger ones are answered 431 and the connection closes.
inline constexpr std::uint32_t kMaxHeaderBytes = 16 * 1024;

// The first line of what the parser refused, for telling HTTP/2.0 (505) from garbage (400).
std::string_view FirstLine(const boost::beast::flat_buffer& buffer);

// The answer to a request the parser refused with `ec`, or nothing when there is nobody to answer
// (the client left, or was too slow: the read deadline).
std::optional<Reply> UnparsableReply(boost::beast::error_code ec, std::string_view first_line);

// The answer to a connection over --max-connections that is not a probe.
Reply TooManyConnectionsReply();

// The same answer as the bytes of a whole HTTP/1.1 response, for a connection refused before a
// request was read.
const std::string& TooManyConnections();

}  // namespace ocr::http
