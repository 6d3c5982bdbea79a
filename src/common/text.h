// Small text helpers shared by every module: ASCII case folding and trimming (HTTP tokens, form
// values, format names), escaping for HTML, echoing client input safely in error messages, and
// viewing a string's bytes as the byte span the decoders take. UTF-8 decoding is in utf8.h.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace ocr {

// 'A'-'Z' -> 'a'-'z'; every other byte unchanged (no locale).
constexpr char AsciiLower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string AsciiLower(std::string_view s);

// The value of a hexadecimal digit (either case), or -1 for any other character: percent escapes.
constexpr int HexDigitValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// `s` without leading and trailing spaces and horizontal tabs (HTTP's OWS, RFC 9110 5.6.3).
std::string_view TrimOws(std::string_view s);

// Escapes & < > " ' for HTML text and attribute values.
std::string EscapeHtml(std::string_view text);

// `text` escaped for XML text and attribute values; characters XML 1.0 cannot hold (C0 controls
// other than tab, newline and carriage return, U+FFFE, U+FFFF, invalid UTF-8) are dropped.
std::string EscapeXml(std::string_view text);

// A client's value as it may be echoed in an error or a log: printable ASCII only (any other
// byte, which could be part of a truncated UTF-8 sequence or a control character, becomes '?'),
// at most `max_bytes` bytes, then "..." when cut.
std::string PrintableEcho(std::string_view value, std::size_t max_bytes = 32);

// The bytes of `s`, for the parsers and decoders that take raw bytes. The span views `s`.
inline std::span<const std::uint8_t> AsBytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

}  // namespace ocr
