// Fuzz target for the multipart parser (http/multipart.h). Input: a Content-Type header value, a
// line feed, then the body. Checked: a boundary accepted from the header is 1-70 printable
// characters; every part has a name, lies inside the body after the previous one, is followed
// by CRLF "--boundary" and never contains that delimiter; the part limit holds; every failure
// is kInvalidArgument with a message.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "http/multipart.h"

namespace {

// Small limits, so inputs of a few KiB reach them.
constexpr ocr::http::MultipartLimits kLimits{.max_parts = 8, .max_part_header_bytes = 512};

// When the header names no usable boundary the body is still parsed, with this one (the seeds
// use it too).
constexpr std::string_view kFallbackBoundary = "fuzzBoundary";

void CheckFailure(const ocr::Status& status) {
  OCR_FUZZ_CHECK(status.code() == ocr::StatusCode::kInvalidArgument);
  OCR_FUZZ_CHECK(!status.message().empty());
}

void CheckBoundary(std::string_view boundary) {
  OCR_FUZZ_CHECK(!boundary.empty() && boundary.size() <= 70);
  OCR_FUZZ_CHECK(boundary.back() != ' ');
  for (const char c : boundary)
    OCR_FUZZ_CHECK(c >= 0x20 && c < 0x7F);
}

void CheckParts(const std::vector<ocr::http::MultipartPart>& parts, std::string_view body,
                std::string_view boundary) {
  OCR_FUZZ_CHECK(parts.size() <= kLimits.max_parts);
  const std::string delimiter = "\r\n--" + std::string(boundary);
  const char* const end = body.data() + body.size();
  const char* previous_end = body.data();
  for (const ocr::http::MultipartPart& part : parts) {
    OCR_FUZZ_CHECK(!part.name.empty());
    const char* const begin = part.body.data();
    OCR_FUZZ_CHECK(begin >= previous_end && begin <= end);
    OCR_FUZZ_CHECK(part.body.size() <= static_cast<std::size_t>(end - begin));
    const std::size_t offset = static_cast<std::size_t>(begin - body.data());
    OCR_FUZZ_CHECK(body.substr(offset + part.body.size(), delimiter.size()) == delimiter);
    OCR_FUZZ_CHECK(part.body.find(delimiter) == std::string_view::npos);
    previous_end = begin + part.body.size();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = ocr::fuzz::AsText(data, size);
  const std::size_t newline = input.find('\n');
  const std::string_view header = input.substr(0, newline);
  const std::string_view body =
      newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);

  const ocr::Result<std::string> from_header = ocr::http::MultipartBoundary(header);
  if (from_header.ok()) {
    CheckBoundary(*from_header);
  } else {
    CheckFailure(from_header.status());
  }
  const std::string boundary = from_header.ok() ? *from_header : std::string(kFallbackBoundary);
  const auto parts = ocr::http::ParseMultipart(body, boundary, kLimits);
  if (parts.ok()) {
    CheckParts(*parts, body, boundary);
  } else {
    CheckFailure(parts.status());
  }
  return 0;
}
