// The path of a request target as the routes see it (RFC 3986 section 6.2.2): percent-encoded
// unreserved characters decoded ("/%68ealthz" is "/healthz"), every other escape kept as sent (so
// "%2F" never becomes a separator). Thread-safety: a pure function.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace ocr::http {

// `path` (the target without its query) normalised for routing. kInvalidArgument for a malformed
// escape ("%zz", "%4"), an encoded NUL ("%00") or a ".." segment (sent as such or encoded): no
// route has one, and refusing them keeps a traversal out of anything that may one day map paths
// to files. Messages echo at most a short printable excerpt of the path.
Result<std::string> NormalizePath(std::string_view path);

}  // namespace ocr::http
