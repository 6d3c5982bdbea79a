// Fuzz target for http::DecodeBase64 (the JSON form's `image`): any text either decodes to at
// most 3 bytes per 4 characters or fails with kInvalidArgument and a message; and the input
// taken as bytes survives decode(encode(x)) padded, unpadded, line-wrapped and as a data: URI.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "http/base64.h"

namespace {

using ocr::fuzz::EncodeBase64;

void CheckRoundTrip(const std::string& encoded, std::string_view original) {
  const ocr::Result<std::string> decoded = ocr::http::DecodeBase64(encoded);
  OCR_FUZZ_CHECK(decoded.ok());
  OCR_FUZZ_CHECK(*decoded == original);
}

// MIME-style lines of 76 characters with CRLF breaks.
std::string Wrapped(const std::string& encoded) {
  std::string out;
  for (std::size_t i = 0; i < encoded.size(); i += 76)
    out += encoded.substr(i, 76) + "\r\n";
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = ocr::fuzz::AsText(data, size);
  const ocr::Result<std::string> decoded = ocr::http::DecodeBase64(input);
  if (decoded.ok()) {
    OCR_FUZZ_CHECK(decoded->size() * 4 <= input.size() * 3);
  } else {
    OCR_FUZZ_CHECK(decoded.status().code() == ocr::StatusCode::kInvalidArgument);
    OCR_FUZZ_CHECK(!decoded.status().message().empty());
  }

  if (input.empty())
    return 0;  // "no data at all" is an error by contract
  const std::string encoded = EncodeBase64(input);
  CheckRoundTrip(encoded, input);
  CheckRoundTrip(encoded.substr(0, encoded.find('=')), input);
  CheckRoundTrip(Wrapped(encoded), input);
  CheckRoundTrip("data:image/png;base64," + encoded, input);
  return 0;
}
