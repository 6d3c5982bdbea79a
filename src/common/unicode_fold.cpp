#include "common/unicode_fold.h"

#include <optional>

#include <unicode/unorm2.h>
#include <unicode/utf8.h>

#include "common/utf8.h"

namespace ocr {
namespace {

bool InFoldedBlocks(char32_t c) {
  return (c >= 0x2E80 && c <= 0x2EFF) || (c >= 0x2F00 && c <= 0x2FDF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

// The one code point `c` decomposes to (ICU's NFKD data, one level), or nothing.
std::optional<char32_t> Folded(char32_t c) {
  if (!InFoldedBlocks(c))
    return std::nullopt;
  UErrorCode status = U_ZERO_ERROR;
  const UNormalizer2* nfkd = unorm2_getNFKDInstance(&status);
  if (U_FAILURE(status))
    return std::nullopt;
  UChar decomposition[4];
  const int32_t length =
      unorm2_getRawDecomposition(nfkd, static_cast<UChar32>(c), decomposition, 4, &status);
  if (U_FAILURE(status) || length <= 0)
    return std::nullopt;
  UChar32 out = 0;
  int32_t at = 0;
  U16_NEXT(decomposition, at, length, out);
  if (at != length)
    return std::nullopt;  // more than one character: not a look-alike of one
  return static_cast<char32_t>(out);
}

}  // namespace

bool HasCompatibilityIdeographs(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::optional<char32_t> c = NextCodePoint(text, i);
    if (c && Folded(*c))
      return true;
  }
  return false;
}

std::string FoldCompatibilityIdeographs(std::string_view text) {
  if (!HasCompatibilityIdeographs(text))
    return std::string(text);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t start = i;
    const std::optional<char32_t> c = NextCodePoint(text, i);
    const std::optional<char32_t> folded = c ? Folded(*c) : std::nullopt;
    if (!folded) {
      out.append(text.substr(start, i - start));
      continue;
    }
    // A decomposition is a valid code point, and U8_MAX_LENGTH bytes hold any.
    uint8_t bytes[U8_MAX_LENGTH];
    int32_t n = 0;
    U8_APPEND_UNSAFE(bytes, n, static_cast<UChar32>(*folded));
    out.append(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace ocr
