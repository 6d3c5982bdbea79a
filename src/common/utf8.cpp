#include "common/utf8.h"

#include <array>

namespace ocr {

std::optional<char32_t> NextCodePoint(std::string_view s, std::size_t& i) {
  // The smallest code point each sequence length may carry: anything below is an overlong form.
  constexpr std::array<char32_t, 5> kMinForLength = {0, 0, 0x80, 0x800, 0x10000};
  const auto lead = static_cast<unsigned char>(s[i]);
  std::size_t length = 0;
  char32_t cp = 0;
  if (lead < 0x80) {
    ++i;
    return lead;
  }
  if ((lead & 0xE0U) == 0xC0U) {
    length = 2;
    cp = lead & 0x1FU;
  } else if ((lead & 0xF0U) == 0xE0U) {
    length = 3;
    cp = lead & 0x0FU;
  } else if ((lead & 0xF8U) == 0xF0U) {
    length = 4;
    cp = lead & 0x07U;
  } else {
    ++i;
    return std::nullopt;
  }
  if (s.size() - i < length) {
    ++i;
    return std::nullopt;
  }
  for (std::size_t k = 1; k < length; ++k) {
    const auto cont = static_cast<unsigned char>(s[i + k]);
    if ((cont & 0xC0U) != 0x80U) {
      ++i;
      return std::nullopt;
    }
    cp = (cp << 6U) | (cont & 0x3FU);
  }
  if (cp < kMinForLength[length] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++i;
    return std::nullopt;
  }
  i += length;
  return cp;
}

bool IsValidUtf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    if (!NextCodePoint(s, i))
      return false;
  }
  return true;
}

}  // namespace ocr
