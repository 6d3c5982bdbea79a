// multipart/form-data (RFC 7578 over RFC 2046) for the upload form: the boundary from the
// request's Content-Type, and a parser that splits an in-memory request body into parts.
// Written by hand for hostile input: linear time in the body size whatever boundary the client
// picks, no recursion, no regex, no exceptions, every index checked; part bodies are views, never
// copies (uploads are large).
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ocr::http {

struct MultipartPart {
  std::string name;  // form field name from Content-Disposition; never empty
  // As sent (may be empty): filename*= (RFC 8187) is decoded to UTF-8 and wins over filename=.
  // Client-controlled text: NEVER used as a path by anyone.
  std::string filename;
  std::string content_type;  // the part's Content-Type value, OWS-trimmed; empty if absent
  // Lifetime: a view into the `body` passed to ParseMultipart; valid only while that buffer is.
  std::string_view body;
};

struct MultipartLimits {
  // Parts in one body; one more is an error, so a body of many tiny parts cannot make us
  // allocate without bound.
  std::size_t max_parts = 32;
  // Bytes of one part's header block, from after its delimiter line up to and including the
  // blank line that ends it (line breaks count).
  std::size_t max_part_header_bytes = std::size_t{8} * 1024;
};

// Extracts the boundary from a Content-Type header value such as
//   multipart/form-data; boundary=----WebKitFormBoundaryX   or   boundary="quoted; value"
// The media type and parameter names are case-insensitive, OWS is allowed around ';' and '=',
// and the value is a token or a quoted-string (a backslash escapes '"' or '\'; before any other
// character it is kept, since clients that quote without escaping are common).
// Errors, all kInvalidArgument with a message saying what is wrong: empty header; media type
// not multipart/form-data; malformed parameters (unterminated quote, control character,
// duplicate parameter name among those we read); no boundary parameter; boundary empty, over
// 70 characters (RFC 2046), ending in a space, or holding a byte outside printable ASCII.
Result<std::string> MultipartBoundary(std::string_view content_type);

// Parses a whole in-memory body of `boundary`-delimited parts.
// REQUIRES: `body` outlives the returned parts (their `body` fields view into it).
// Framing: a preamble before the first "--boundary" and an epilogue after "--boundary--" are
// ignored. A delimiter is CRLF "--boundary" (only the first may sit at the very start without
// CRLF) and must be followed by "--" (close), or by optional spaces/tabs then a line break.
// A body that ends right after a delimiter or its spaces/tabs (close marker "--" missing) is
// accepted; one that ends inside a part or its headers is not. Part headers end at a blank line;
// bare LF line breaks are accepted in part headers (some clients), never in delimiters. Part
// bodies may hold any bytes, including CR, LF, "--" and the boundary not preceded by CRLF.
// Errors:
//   kInvalidArgument "multipart boundary ..." for a boundary MultipartBoundary would refuse
//     (empty, over 70 characters, not printable ASCII, trailing space).
//   kInvalidArgument "malformed multipart body: <what>" for an empty body, no opening boundary,
//     bytes after a delimiter that are neither "--" nor a line break, more than
//     limits.max_parts parts, a header block over limits.max_part_header_bytes or not
//     terminated, a malformed or folded header line, a repeated Content-Disposition or
//     Content-Type, a missing Content-Disposition, a disposition other than form-data, a missing
//     or empty name, a repeated name/filename/filename*, a bad filename*, or a part with no
//     closing delimiter.
Result<std::vector<MultipartPart>> ParseMultipart(std::string_view body, std::string_view boundary,
                                                  const MultipartLimits& limits = {});

}  // namespace ocr::http
