// Base64 (RFC 4648, standard alphabet) for the JSON upload form, where `image` may also be a
// data URI ("data:image/png;base64,...").
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace ocr::http {

// Decodes `text` into bytes. Accepts an optional "data:<type>;base64," prefix, ASCII whitespace
// anywhere (line-wrapped input), and input with or without '=' padding.
// Errors: kInvalidArgument naming the problem (a character outside the alphabet, misplaced
// padding, a truncated final group, a data URI that is not base64, or no data at all).
Result<std::string> DecodeBase64(std::string_view text);

}  // namespace ocr::http
