// Fuzz target for the hand-written decoders of the shared job store (jobs/): ParseRedisUrl (the
// --redis URL) either fails with kInvalidArgument without echoing a password, or gives an endpoint
// whose URL parses back to the same endpoint and whose Redacted() form never shows the password;
// DecodePage (a page as stored in Redis or the durable store's database) and DecodeJobSpec (a
// job's spec, in either) either fail with kInternal or give a value that encodes and decodes back
// to the same encoding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "jobs/job_spec_codec.h"
#include "jobs/page_codec.h"
#include "jobs/redis_client.h"

namespace {

std::string UrlOf(const ocr::jobs::RedisEndpoint& e) {
  const bool ipv6 = e.host.find(':') != std::string::npos;
  return "redis://" + (e.password.empty() ? std::string() : ":" + e.password + "@") +
         (ipv6 ? "[" + e.host + "]" : e.host) + ":" + std::to_string(e.port) + "/" +
         std::to_string(e.db);
}

// A password no message of ParseRedisUrl contains by chance.
constexpr std::string_view kSecret = "Zq9-fuzz-secret-Zq9";

void CheckUrl(std::string_view input) {
  const auto endpoint = ocr::jobs::ParseRedisUrl(input);
  if (!endpoint.ok()) {
    OCR_FUZZ_CHECK(endpoint.status().code() == ocr::StatusCode::kInvalidArgument);
    OCR_FUZZ_CHECK(!endpoint.status().message().empty());
    OCR_FUZZ_CHECK(endpoint.status().message().find(kSecret) == std::string::npos);
    return;
  }
  OCR_FUZZ_CHECK(!endpoint->host.empty());
  OCR_FUZZ_CHECK(endpoint->port >= 1 && endpoint->port <= 65535);
  OCR_FUZZ_CHECK(endpoint->db >= 0);
  OCR_FUZZ_CHECK(endpoint->Redacted() ==
                 "redis://" + std::string(endpoint->password.empty() ? "" : ":***@") +
                     endpoint->host + ":" + std::to_string(endpoint->port) + "/" +
                     std::to_string(endpoint->db));
  const auto again = ocr::jobs::ParseRedisUrl(UrlOf(*endpoint));
  OCR_FUZZ_CHECK(again.ok());
  OCR_FUZZ_CHECK(again->host == endpoint->host && again->port == endpoint->port &&
                 again->password == endpoint->password && again->db == endpoint->db);
}

// A decoder of stored values either fails with kInternal or gives a value that encodes and
// decodes back to the same encoding.
template <typename Decode, typename Encode>
void CheckRoundTrip(std::string_view input, Decode decode, Encode encode) {
  const auto value = decode(input);
  if (!value.ok()) {
    OCR_FUZZ_CHECK(value.status().code() == ocr::StatusCode::kInternal);
    return;
  }
  const std::string encoded = encode(*value);
  const auto again = decode(encoded);
  OCR_FUZZ_CHECK(again.ok());
  OCR_FUZZ_CHECK(encode(*again) == encoded);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = ocr::fuzz::AsText(data, size);
  CheckUrl(input);
  CheckUrl("redis://" + std::string(input));
  // Whatever follows it, the password given is never echoed in an error.
  const auto secret =
      ocr::jobs::ParseRedisUrl("redis://:" + std::string(kSecret) + "@" + std::string(input));
  OCR_FUZZ_CHECK(secret.ok() || secret.status().message().find(kSecret) == std::string::npos);
  CheckRoundTrip(input, ocr::jobs::DecodePage, ocr::jobs::EncodePage);
  CheckRoundTrip(input, ocr::jobs::DecodeJobSpec, ocr::jobs::EncodeJobSpec);
  return 0;
}
