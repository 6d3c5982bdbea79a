// How the catalog's messages are written: numbers, joined pieces, errno values.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <system_error>

namespace ocr::catalog::internal {

// 1780590 -> "1,780,590".
inline std::string Thousands(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  for (auto i = static_cast<std::ptrdiff_t>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(static_cast<std::size_t>(i), ",");
  return n < 0 ? "-" + digits : digits;
}

// The pieces, joined: a message built in a loop without a temporary string per '+'.
inline std::string Cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view part : parts)
    out += part;
  return out;
}

// What an errno value means ("No space left on device"); thread-safe, unlike strerror.
inline std::string ErrnoText(int error) {
  return std::generic_category().message(error);
}

}  // namespace ocr::catalog::internal
