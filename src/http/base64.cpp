#include "http/base64.h"

#include <array>
#include <cstdint>

namespace ocr::http {
namespace {

constexpr std::uint8_t kInvalid = 0xFF;

constexpr std::array<std::uint8_t, 256> MakeTable() {
  std::array<std::uint8_t, 256> t{};
  for (auto& v : t)
    v = kInvalid;
  constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < kAlphabet.size(); ++i) {
    t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::uint8_t>(i);
  }
  return t;
}

constexpr std::array<std::uint8_t, 256> kTable = MakeTable();

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f';
}

}  // namespace

Result<std::string> DecodeBase64(std::string_view text) {
  if (text.substr(0, 5) == "data:") {
    const size_t comma = text.find(',');
    if (comma == std::string_view::npos) {
      return InvalidArgument("data URI has no ',' before its data");
    }
    const std::string_view meta = text.substr(0, comma);
    constexpr std::string_view kSuffix = ";base64";
    if (meta.size() < kSuffix.size() || meta.substr(meta.size() - kSuffix.size()) != kSuffix) {
      return InvalidArgument("data URI is not base64-encoded (expected ';base64,')");
    }
    text.remove_prefix(comma + 1);
  }

  std::string out;
  out.reserve(text.size() / 4 * 3 + 3);
  std::uint32_t acc = 0;
  int bits = 0;        // bits held in acc
  size_t symbols = 0;  // alphabet characters seen
  size_t padding = 0;  // '=' seen
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (IsSpace(c))
      continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    const std::uint8_t v = kTable[static_cast<unsigned char>(c)];
    if (v == kInvalid) {
      return InvalidArgument("invalid base64 character at offset " + std::to_string(i));
    }
    if (padding > 0)
      return InvalidArgument("base64 data continues after '=' padding");
    ++symbols;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  if (symbols == 0)
    return InvalidArgument("base64 data is empty");
  const size_t rem = symbols % 4;
  if (rem == 1)
    return InvalidArgument("base64 data is truncated (length is not valid)");
  if (padding > 0 && (padding > 2 || (symbols + padding) % 4 != 0)) {
    return InvalidArgument("base64 padding is malformed");
  }
  return out;
}

}  // namespace ocr::http
