// The path of a request target as the routes see it (RFC 3986 section 6.2.2): percent-encoded
// unreserved characters decoded ("/%68ealthz" is "/healthz"), every other escape kept as sent (so
// "%2F" never becomes a separator). Thread-safety: a pure function.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace ocr::http {

// `path` (the target without its query) normalised for routing. kInvalidArgument for a malformed
// escape ("%zz", "%4"), an encoded NUL ("%00") or a ".." segment (sent as such or encoded): no
// route has one, and refusing them keeps a traversal out of anything that may one day map paths
// to files. Messages echo at most a short printable excerpt of the path.
Result<std::string> NormalizePath(std::string_view path);

// The value of the first `name=value` pair in `query` (the target after its '?', in the form
// encoding: pairs split by '&', '+' a space, percent escapes decoded; a pair without '=' has an
// empty value); nullopt when no pair has that name. kInvalidArgument for a malformed escape or an
// encoded NUL in the pair found.
Result<std::optional<std::string>> QueryValue(std::string_view query, std::string_view name);

}  // namespace ocr::http
