// Helpers shared by the fuzz targets and their seed generator: the invariant check (a failed one
// aborts, so libFuzzer records it as a crash with its input), views of the input, and a reference
// base64 encoder for round-trip checks and seeds.
// Thread-safety: pure functions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

// Aborts with the failed condition when `cond` is false; on in every build type.
#define OCR_FUZZ_CHECK(cond) \
  ((cond) ? static_cast<void>(0) : ::ocr::fuzz::CheckFailed(#cond, __FILE__, __LINE__))

namespace ocr::fuzz {

[[noreturn]] inline void CheckFailed(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", file, line, condition);
  std::abort();
}

// Lifetime: views into the fuzzer's input, valid during one LLVMFuzzerTestOneInput call.
inline std::string_view AsText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

inline std::span<const std::uint8_t> AsBytes(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

// RFC 4648 base64, standard alphabet, with '=' padding.
inline std::string EncodeBase64(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < in.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, in.size() - i);
    std::uint32_t group = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      const std::uint32_t byte = k < n ? static_cast<std::uint8_t>(in[i + k]) : 0u;
      group = (group << 8) | byte;
    }
    for (std::size_t k = 0; k < 4; ++k)
      out += k <= n ? kAlphabet[(group >> (18 - 6 * k)) & 63u] : '=';
  }
  return out;
}

}  // namespace ocr::fuzz
