// UTF-8 decoding by RFC 3629, for everything that reads text a client or a file wrote (form
// fields, PDF text layers). Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace ocr {

// Decodes the code point that starts at byte `i` of `s` and moves `i` past it. Invalid input
// (a stray continuation byte, a truncated sequence, an overlong form, a surrogate, a value past
// U+10FFFF) gives nullopt and moves `i` one byte on, so a caller can count and skip bad bytes.
// REQUIRES: i < s.size().
std::optional<char32_t> NextCodePoint(std::string_view s, std::size_t& i);

// Whether all of `s` is valid UTF-8.
bool IsValidUtf8(std::string_view s);

}  // namespace ocr
