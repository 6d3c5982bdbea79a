// multipart/form-data boundary extraction and body parsing, including hostile and truncated input.
// Buffers handed to the parser are exact-size heap copies where it matters, so AddressSanitizer
// flags any read past the end.
#include "http/multipart.h"

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace ocr::http {
namespace {

constexpr std::string_view kBoundary = "----WebKitFormBoundary7MA4YWxkTrZu0gW";
constexpr std::uint32_t kSeed = 7767517;

// A string literal with embedded NULs kept (std::string(const char*) would stop at the first).
template <std::size_t N>
std::string Bytes(const char (&s)[N]) {
  return std::string(s, N - 1);
}

// Bytes of an "image" that try every near-miss of a delimiter: CRLF "--", the boundary after a
// bare LF or another byte, the boundary minus its last character, NULs, and a trailing CR.
std::string FileBytes() {
  return Bytes(
             "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\r\n--\r\n-- not a delimiter\n"
             "------WebKitFormBoundary7MA4YWxkTrZu0gW after LF\r\n"
             "x------WebKitFormBoundary7MA4YWxkTrZu0gW after x\r\n"
             "------WebKitFormBoundary7MA4YWxkTrZu0gX\r\n\r\n\0") +
         "\r";
}

std::string Delimiter(std::string_view boundary) {
  return "\r\n--" + std::string(boundary);
}

// What Chrome sends for a form with a text field, a file, and an empty text field.
std::string BrowserBody() {
  const std::string b(kBoundary);
  return "--" + b +
         "\r\n"
         "Content-Disposition: form-data; name=\"lang\"\r\n"
         "\r\n"
         "en" +
         Delimiter(b) +
         "\r\n"
         "Content-Disposition: form-data; name=\"file\"; filename=\"scan.png\"\r\n"
         "Content-Type: image/png\r\n"
         "\r\n" +
         FileBytes() + Delimiter(b) +
         "\r\n"
         "Content-Disposition: form-data; name=\"note\"\r\n"
         "\r\n" +
         Delimiter(b) + "--\r\n";
}

// A one-part body with the given header block (each line CRLF-terminated by the caller).
std::string OnePart(std::string_view boundary, std::string_view headers, std::string_view value) {
  return "--" + std::string(boundary) + "\r\n" + std::string(headers) + "\r\n" +
         std::string(value) + Delimiter(boundary) + "--\r\n";
}

bool ViewLiesInside(std::string_view view, const char* begin, std::size_t size) {
  const auto lo = reinterpret_cast<std::uintptr_t>(begin);
  const auto p = reinterpret_cast<std::uintptr_t>(view.data());
  return p >= lo && p <= lo + size && view.size() <= lo + size - p;
}

std::string ErrorOf(const Result<std::vector<MultipartPart>>& r) {
  return r.status().message();
}

TEST(MultipartTest, ParsesBrowserStyleBody) {
  const std::string body = BrowserBody();
  auto parts = ParseMultipart(body, kBoundary);
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->size(), 3U);

  EXPECT_EQ((*parts)[0].name, "lang");
  EXPECT_EQ((*parts)[0].filename, "");
  EXPECT_EQ((*parts)[0].content_type, "");
  EXPECT_EQ((*parts)[0].body, "en");

  EXPECT_EQ((*parts)[1].name, "file");
  EXPECT_EQ((*parts)[1].filename, "scan.png");
  EXPECT_EQ((*parts)[1].content_type, "image/png");
  EXPECT_EQ((*parts)[1].body, FileBytes());
  EXPECT_EQ((*parts)[1].body.back(), '\r');

  EXPECT_EQ((*parts)[2].name, "note");
  EXPECT_TRUE((*parts)[2].body.empty());

  for (const MultipartPart& part : *parts) {
    EXPECT_TRUE(ViewLiesInside(part.body, body.data(), body.size()));
  }
}

TEST(MultipartTest, EmptyFormHasNoParts) {
  auto parts = ParseMultipart("--abc--\r\n", "abc");
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  EXPECT_TRUE(parts->empty());
}

TEST(MultipartTest, ExtractsQuotedAndUnquotedBoundary) {
  struct Case {
    std::string_view header;
    std::string_view boundary;
  };

  const Case cases[] = {
      {"multipart/form-data; boundary=----WebKitFormBoundaryX", "----WebKitFormBoundaryX"},
      {"Multipart/Form-Data ; BOUNDARY = abc ", "abc"},
      {"multipart/form-data;boundary=abc", "abc"},
      {"multipart/form-data; charset=utf-8; boundary=\"quoted; value\"", "quoted; value"},
      {"multipart/form-data; boundary=\"quoted; value\"; charset=utf-8", "quoted; value"},
      {"multipart/form-data; boundary=\"a\\\"b\\\\c\"", "a\"b\\c"},
      {"multipart/form-data; boundary=\"a\\b\"", "a\\b"},  // unescaped backslash is kept
      {"multipart/form-data; ; boundary=x;", "x"},
      {"\tmultipart/form-data;\tboundary=x\t", "x"},
  };
  for (const Case& c : cases) {
    auto boundary = MultipartBoundary(c.header);
    ASSERT_TRUE(boundary.ok()) << c.header << ": " << boundary.status().ToString();
    EXPECT_EQ(*boundary, c.boundary) << c.header;
  }
}

TEST(MultipartTest, BoundaryWithSpecialCharacters) {
  // Every RFC 2046 bchar that is not alphanumeric, including the inner space.
  const std::string special = "'()+_,-./:=? x";
  auto boundary = MultipartBoundary("multipart/form-data; boundary=\"" + special + "\"");
  ASSERT_TRUE(boundary.ok()) << boundary.status().ToString();
  EXPECT_EQ(*boundary, special);

  auto unquoted = MultipartBoundary("multipart/form-data; boundary==_Part_0_1.2:3/4?");
  ASSERT_TRUE(unquoted.ok()) << unquoted.status().ToString();
  EXPECT_EQ(*unquoted, "=_Part_0_1.2:3/4?");

  const std::string body =
      "preamble\r\n" + OnePart(special, "Content-Disposition: form-data; name=a\r\n", "v");
  auto parts = ParseMultipart(body, special);
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->size(), 1U);
  EXPECT_EQ((*parts)[0].name, "a");
  EXPECT_EQ((*parts)[0].body, "v");
}

TEST(MultipartTest, RejectsBadContentTypeHeaders) {
  const std::string_view bad[] = {
      "",
      "   ",
      "multipart/form-data",
      "multipart/form-data;",
      "multipart/form-data; charset=utf-8",
      "text/plain; boundary=abc",
      "multipart/mixed; boundary=abc",
      "multipart/form-data-x; boundary=abc",
      "multipart/form-data; boundary=",
      "multipart/form-data; boundary=\"\"",
      "multipart/form-data; boundary=\"abc",
      "multipart/form-data; boundary=abc; boundary=abd",
      "multipart/form-data; boundary",
      "multipart/form-data; boundary=a b",
      "multipart/form-data; boundary=\"ab \"",
      "multipart/form-data; boundary=\"a\x01z\"",
      "multipart/form-data; boundary=a\x7f",
      "multipart/form-data; boundary=\"caf\xc3\xa9\"",
      "multipart/form-data; =abc",
  };
  for (std::string_view header : bad) {
    auto boundary = MultipartBoundary(header);
    ASSERT_FALSE(boundary.ok()) << "accepted: " << header;
    EXPECT_EQ(boundary.status().code(), StatusCode::kInvalidArgument);
    EXPECT_FALSE(boundary.status().message().empty());
  }

  const std::string max(70, 'b');
  auto at_limit = MultipartBoundary("multipart/form-data; boundary=" + max);
  ASSERT_TRUE(at_limit.ok()) << at_limit.status().ToString();
  EXPECT_EQ(*at_limit, max);
  auto too_long = MultipartBoundary("multipart/form-data; boundary=" + max + "b");
  ASSERT_FALSE(too_long.ok());
  EXPECT_NE(too_long.status().message().find("70"), std::string::npos);

  EXPECT_NE(MultipartBoundary("text/plain").status().message().find("multipart/form-data"),
            std::string::npos);
  EXPECT_NE(MultipartBoundary("multipart/form-data").status().message().find("no boundary"),
            std::string::npos);
}

TEST(MultipartTest, DecodesFilenameStar) {
  const auto filename_of = [](std::string_view disposition) -> Result<std::string> {
    const std::string body =
        OnePart("b", "Content-Disposition: " + std::string(disposition) + "\r\n", "v");
    auto parts = ParseMultipart(body, "b");
    if (!parts.ok())
      return parts.status();
    return (*parts)[0].filename;
  };
  auto utf8 = filename_of(
      "form-data; name=\"file\"; filename=\"fallback.png\"; "
      "filename*=UTF-8''%E6%96%87%E6%9B%B8%20scan.png");
  ASSERT_TRUE(utf8.ok()) << utf8.status().ToString();
  EXPECT_EQ(*utf8, "\xE6\x96\x87\xE6\x9B\xB8 scan.png");  // filename* wins (RFC 6266)

  auto lower = filename_of("form-data; filename*=utf-8'en'a%2fb%25.png; name=f");
  ASSERT_TRUE(lower.ok()) << lower.status().ToString();
  EXPECT_EQ(*lower, "a/b%.png");  // decoded as is; callers never use it as a path

  auto latin1 = filename_of("form-data; name=f; filename*=ISO-8859-1''%A3%20rates.png");
  ASSERT_TRUE(latin1.ok()) << latin1.status().ToString();
  EXPECT_EQ(*latin1, "\xC2\xA3 rates.png");

  auto raw = filename_of("form-data; name=f; filename=\"C:\\dir\\x.png\"");
  ASSERT_TRUE(raw.ok()) << raw.status().ToString();
  EXPECT_EQ(*raw, "C:\\dir\\x.png");  // browsers do not escape backslashes

  for (std::string_view bad :
       {"form-data; name=f; filename*=UTF-8''%E6%9", "form-data; name=f; filename*=UTF-8''a%0Ab",
        "form-data; name=f; filename*=UTF-8''%00", "form-data; name=f; filename*=UTF-8''%FF.png",
        "form-data; name=f; filename*=UTF-8''%C0%AF",
        "form-data; name=f; filename*=UTF-8''%ED%A0%80", "form-data; name=f; filename*=KOI8-R''x",
        "form-data; name=f; filename*=x.png", "form-data; name=f; filename*=UTF-8''%zz",
        "form-data; name=f; filename=a; filename=b"}) {
    auto r = filename_of(bad);
    EXPECT_FALSE(r.ok()) << "accepted: " << bad;
  }
}

TEST(MultipartTest, AcceptsUnquotedTokensAndCaseInsensitiveHeaders) {
  const std::string body = OnePart("b",
                                   "content-DISPOSITION:Form-Data;NAME=file; filename=a.png\r\n"
                                   "CONTENT-TYPE:   image/png  \r\n"
                                   "X-Ignored: anything: at all\r\n",
                                   "png");
  auto parts = ParseMultipart(body, "b");
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->size(), 1U);
  EXPECT_EQ((*parts)[0].name, "file");
  EXPECT_EQ((*parts)[0].filename, "a.png");
  EXPECT_EQ((*parts)[0].content_type, "image/png");
  EXPECT_EQ((*parts)[0].body, "png");
}

TEST(MultipartTest, AcceptsBareLfInPartHeaders) {
  const std::string body =
      "--b  \n"
      "Content-Disposition: form-data; name=\"a\"\n"
      "Content-Type: text/plain\r\n"
      "\n"
      "line1\nline2\r\n--b\t\r\n"
      "Content-Disposition: form-data; name=\"c\"\n"
      "\r\n"
      "x\r\n--b--";
  auto parts = ParseMultipart(body, "b");
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->size(), 2U);
  EXPECT_EQ((*parts)[0].body, "line1\nline2");
  EXPECT_EQ((*parts)[0].content_type, "text/plain");
  EXPECT_EQ((*parts)[1].body, "x");

  // A delimiter after a bare LF is not a delimiter: the part never ends.
  auto lf_delimiter =
      ParseMultipart("--b\nContent-Disposition: form-data; name=\"a\"\n\nvalue\n--b--\n", "b");
  ASSERT_FALSE(lf_delimiter.ok());
  EXPECT_NE(ErrorOf(lf_delimiter).find("not terminated"), std::string::npos);
}

TEST(MultipartTest, IgnoresPreambleAndEpilogue) {
  const std::string body =
      "This is the preamble. --b is not a delimiter here, nor is\n--b\r\n"
      "\r\n--b\r\n"
      "Content-Disposition: form-data; name=\"a\"\r\n\r\n"
      "value\r\n--b--  \r\n"
      "epilogue \r\n--b\r\nContent-Disposition: form-data; name=\"ghost\"\r\n\r\nx\r\n--b--";
  auto parts = ParseMultipart(body, "b");
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->size(), 1U);
  EXPECT_EQ((*parts)[0].name, "a");
  EXPECT_EQ((*parts)[0].body, "value");
}

TEST(MultipartTest, ToleratesMissingCloseMarkerOnly) {
  const std::string part = "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue";
  for (std::string_view ending : {"\r\n--b", "\r\n--b \t"}) {
    const std::string body = part + std::string(ending);  // outlives the views in `parts`
    auto parts = ParseMultipart(body, "b");
    ASSERT_TRUE(parts.ok()) << parts.status().ToString();
    ASSERT_EQ(parts->size(), 1U);
    EXPECT_EQ((*parts)[0].body, "value");
  }
  for (std::string_view ending : {"", "\r\n", "\r\n--", "\r\n--b-", "\r\n--b\r", "\r\n--b\r\n"}) {
    auto parts = ParseMultipart(part + std::string(ending), "b");
    EXPECT_FALSE(parts.ok()) << "accepted ending: " << ending;
  }
  auto in_part = ParseMultipart(part, "b");
  EXPECT_NE(ErrorOf(in_part).find("part 1 is not terminated"), std::string::npos);
}

TEST(MultipartTest, RejectsBytesAfterDelimiter) {
  auto parts = ParseMultipart(
      "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--bc\r\n\r\n--b--", "b");
  ASSERT_FALSE(parts.ok());
  EXPECT_NE(ErrorOf(parts).find("followed by neither"), std::string::npos);
}

TEST(MultipartTest, TruncatedBodiesFailOrReturnAPrefix) {
  const std::string full = BrowserBody();
  auto expected = ParseMultipart(full, kBoundary);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  std::vector<std::size_t> ok_part_counts;
  for (std::size_t length = 0; length <= full.size(); ++length) {
    // Exact-size heap copy: a read at [length] is a heap overflow that ASan reports.
    const std::vector<char> buffer(full.begin(),
                                   full.begin() + static_cast<std::ptrdiff_t>(length));
    const std::string_view prefix(buffer.data(), buffer.size());
    auto parts = ParseMultipart(prefix, kBoundary);
    if (!parts.ok()) {
      EXPECT_EQ(parts.status().code(), StatusCode::kInvalidArgument);
      continue;
    }
    ASSERT_LE(parts->size(), expected->size()) << "length " << length;
    for (std::size_t i = 0; i < parts->size(); ++i) {
      const MultipartPart& got = (*parts)[i];
      const MultipartPart& want = (*expected)[i];
      EXPECT_EQ(got.name, want.name) << "length " << length;
      EXPECT_EQ(got.filename, want.filename) << "length " << length;
      EXPECT_EQ(got.content_type, want.content_type) << "length " << length;
      EXPECT_EQ(got.body, want.body) << "length " << length;
      EXPECT_TRUE(ViewLiesInside(got.body, buffer.data(), buffer.size()));
    }
    ok_part_counts.push_back(parts->size());
  }
  // Accepted: right after each delimiter's dash-boundary (missing close marker), after "--"
  // and everything after it in the epilogue; nothing else.
  const std::vector<std::size_t> want_counts = {0, 1, 2, 3, 3, 3, 3};
  EXPECT_EQ(ok_part_counts, want_counts);
}

TEST(MultipartTest, MissingContentDispositionIsAnError) {
  auto parts = ParseMultipart(OnePart("b", "Content-Type: text/plain\r\n", "v"), "b");
  ASSERT_FALSE(parts.ok());
  EXPECT_EQ(parts.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(ErrorOf(parts).find("malformed multipart body: "), std::string::npos);
  EXPECT_NE(ErrorOf(parts).find("Content-Disposition"), std::string::npos);

  EXPECT_FALSE(ParseMultipart(OnePart("b", "", "v"), "b").ok());  // no headers at all
}

TEST(MultipartTest, RejectsBadContentDisposition) {
  const std::string name_a = "Content-Disposition: form-data; name=\"a\"\r\n";
  const std::string cases[] = {
      "Content-Disposition: form-data; filename=\"a.png\"\r\n",      // no name
      "Content-Disposition: form-data; name=\"\"\r\n",               // empty name
      "Content-Disposition: attachment; name=\"a\"\r\n",             // not form-data
      "Content-Disposition: form-data; name=\"a\"; name=\"b\"\r\n",  // repeated name
      "Content-Disposition: form-data; name=\"a\r\n",                // unterminated quote
      "Content-Disposition: form-data; name=a b\r\n",                // junk after value
      name_a + "Content-Disposition: form-data; name=\"b\"\r\n",     // repeated header
      name_a + "Content-Type: a\r\nContent-Type: b\r\n",             // repeated Content-Type
      "Content-Disposition: form-data;\r\n name=\"a\"\r\n",          // obsolete folding
      "Content-Disposition : form-data; name=\"a\"\r\n",             // space before ':'
      "Content-Disposition form-data; name=\"a\"\r\n",               // no ':'
      "Content-Disposition: form-data; name=\"a\"\r\r\n",            // stray CR
  };
  for (const std::string& headers : cases) {
    auto parts = ParseMultipart(OnePart("b", headers, "v"), "b");
    ASSERT_FALSE(parts.ok()) << "accepted: " << headers;
    EXPECT_EQ(parts.status().code(), StatusCode::kInvalidArgument);
  }
  // Embedded NUL through a literal would end the string_view early; test it explicitly.
  const std::string nul =
      OnePart("b", Bytes("Content-Disposition: form-data; name=\"a\0b\"\r\n"), "v");
  EXPECT_FALSE(ParseMultipart(nul, "b").ok());
}

TEST(MultipartTest, TooManyPartsIsAnError) {
  const auto body_with = [](int count) {
    std::string body;
    for (int i = 0; i < count; ++i) {
      body +=
          "--b\r\nContent-Disposition: form-data; name=\"f" + std::to_string(i) + "\"\r\n\r\nv\r\n";
    }
    return body + "--b--";
  };
  MultipartLimits limits;
  limits.max_parts = 2;
  const std::string two = body_with(2);
  auto at_limit = ParseMultipart(two, "b", limits);
  ASSERT_TRUE(at_limit.ok()) << at_limit.status().ToString();
  EXPECT_EQ(at_limit->size(), 2U);

  auto over = ParseMultipart(body_with(3), "b", limits);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(ErrorOf(over).find("more than 2 parts"), std::string::npos);

  // The default limit holds against a flood of empty parts.
  auto flood = ParseMultipart(body_with(10000), "b");
  EXPECT_NE(ErrorOf(flood).find("more than 32 parts"), std::string::npos);
}

TEST(MultipartTest, PartHeadersOverTheLimitAreAnError) {
  const std::string disposition = "Content-Disposition: form-data; name=\"a\"\r\n";
  MultipartLimits limits;
  limits.max_part_header_bytes = 100;
  // The header block counts its line breaks and the blank line: exactly 100 bytes fits.
  const std::string padding(100 - disposition.size() - std::string("X: \r\n\r\n").size(), 'p');
  const std::string fits = OnePart("b", disposition + "X: " + padding + "\r\n", "v");
  auto ok = ParseMultipart(fits, "b", limits);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)[0].body, "v");

  const std::string over = OnePart("b", disposition + "X: " + padding + "p\r\n", "v");
  auto too_big = ParseMultipart(over, "b", limits);
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(ErrorOf(too_big).find("part headers exceed 100 bytes"), std::string::npos);

  // A header block that never ends in a large body fails on the limit, not at the end.
  const std::string endless = "--b\r\nX: " + std::string(1 << 20, 'x');
  EXPECT_NE(ErrorOf(ParseMultipart(endless, "b")).find("exceed 8192 bytes"), std::string::npos);
  EXPECT_NE(ErrorOf(ParseMultipart("--b\r\nX: y\r\n", "b")).find("ends inside part headers"),
            std::string::npos);
}

TEST(MultipartTest, EmptyBodyIsAnError) {
  auto parts = ParseMultipart("", "b");
  ASSERT_FALSE(parts.ok());
  EXPECT_EQ(parts.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(ErrorOf(parts).find("empty"), std::string::npos);
}

TEST(MultipartTest, BoundaryNotFoundIsAnError) {
  for (std::string_view body : {"no delimiter at all", "-b\r\n", "\n--b\r\n", "x--b\r\n"}) {
    auto parts = ParseMultipart(body, "b");
    ASSERT_FALSE(parts.ok()) << body;
    EXPECT_NE(ErrorOf(parts).find("no opening boundary"), std::string::npos) << body;
  }
  auto other = ParseMultipart(BrowserBody(), "----WebKitFormBoundaryOther");
  EXPECT_NE(ErrorOf(other).find("no opening boundary"), std::string::npos);
}

TEST(MultipartTest, RejectsInvalidBoundaryArgument) {
  EXPECT_FALSE(ParseMultipart("--\r\n", "").ok());
  EXPECT_FALSE(ParseMultipart("x", std::string(71, 'b')).ok());
  EXPECT_FALSE(ParseMultipart("--a\rb\r\n", "a\rb").ok());
  EXPECT_FALSE(ParseMultipart("--a \r\n", "a ").ok());
}

TEST(MultipartTest, ParsesA20MegabytePart) {
  constexpr std::size_t kPartBytes = 20U << 20;
  // Dense near-misses ("\r\n--" and boundary prefixes) so the search cannot skip ahead cheaply.
  const std::string boundary = "q1w2e3r4t5y6";
  const std::string pattern = Bytes("\r\n--q1w2e3r4t5y\r\n-\0--q1w2e3r4t5y6");
  std::string data;
  data.reserve(kPartBytes);
  while (data.size() + pattern.size() <= kPartBytes)
    data += pattern;
  data.append(kPartBytes - data.size(), 'z');
  ASSERT_EQ(data.size(), kPartBytes);

  const std::string body = OnePart(
      boundary, "Content-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n", data);
  auto parts = ParseMultipart(body, boundary);
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->size(), 1U);
  EXPECT_EQ((*parts)[0].body.size(), kPartBytes);
  EXPECT_TRUE((*parts)[0].body == data);
}

TEST(MultipartTest, PartEndsAtTheFirstFullDelimiter) {
  // Partial delimiters that end on the CR of the next candidate, so a scan that skipped past a
  // partial match too far would miss the real delimiter.
  const std::string value = "x\r\r\n\r\n-\r\n--\r\n--b\r\n--bc\r";
  const std::string body = OnePart("bb", "Content-Disposition: form-data; name=a\r\n", value);
  auto parts = ParseMultipart(body, "bb");
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->size(), 1U);
  EXPECT_EQ((*parts)[0].body, value);
}

TEST(MultipartTest, ParsesAdversarialNearMissFloods) {
  // The client picks the boundary: a run of one letter is the worst case for skip-table searches
  // over a body of that letter, and a flood of CRs or of truncated delimiters is the worst case
  // for a CR-anchored scan. Correctness is asserted; the test's time bound catches blowups.
  const std::string boundary(70, 'a');
  const std::string delimiter = Delimiter(boundary);
  std::string data(4U << 20, 'a');
  data.append(4U << 20, '\r');
  const std::string near_miss = delimiter.substr(0, delimiter.size() - 1) + "b";
  while (data.size() < (12U << 20))
    data += near_miss;
  const std::string body =
      OnePart(boundary, "Content-Disposition: form-data; name=\"file\"\r\n", data);
  auto parts = ParseMultipart(body, boundary);
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->size(), 1U);
  EXPECT_EQ((*parts)[0].body.size(), data.size());
  EXPECT_TRUE((*parts)[0].body == data);
}

// Returns `base` with 1..4 random edits, biased towards bytes that matter to the framing.
std::string Mutate(std::string base, std::mt19937& rng) {
  const std::string delimiter = Delimiter(kBoundary);
  const std::string_view delimiter_view = delimiter;
  const std::string_view tokens[] = {"\r\n",     "\n", "\r", "--", delimiter_view.substr(0, 8),
                                     "\r\n\r\n", "\"", ";",  "=",  "\\",
                                     "%",        "'",  ":",  " "};
  std::uniform_int_distribution<int> edits(1, 4);
  std::uniform_int_distribution<int> kind(0, 6);
  std::uniform_int_distribution<int> byte(0, 255);
  const int count = edits(rng);
  for (int e = 0; e < count; ++e) {
    const std::size_t at = std::uniform_int_distribution<std::size_t>(0, base.size())(rng);
    const std::size_t span = std::uniform_int_distribution<std::size_t>(0, 16)(rng);
    switch (kind(rng)) {
      case 0:
        if (at < base.size())
          base[at] = static_cast<char>(byte(rng));
        break;
      case 1:
        base.insert(at, 1, static_cast<char>(byte(rng)));
        break;
      case 2:
        base.erase(at, span);
        break;
      case 3:
        base.insert(at, base.substr(at, span));
        break;
      case 4:
        base.resize(at);
        break;
      case 5:
        base.insert(at, delimiter);
        break;
      default:
        base.insert(
            at, tokens[std::uniform_int_distribution<std::size_t>(0, std::size(tokens) - 1)(rng)]);
        break;
    }
  }
  return base;
}

TEST(MultipartTest, RandomMutationsNeverEscapeTheInput) {
  std::cout << "[ seed     ] " << kSeed << "\n";
  SCOPED_TRACE(testing::Message() << "seed " << kSeed);
  std::mt19937 rng(kSeed);
  const std::string base = BrowserBody();
  const std::string content_type =
      "multipart/form-data; charset=utf-8; boundary=\"" + std::string(kBoundary) + "\"";
  MultipartLimits limits;
  limits.max_parts = 4;
  limits.max_part_header_bytes = 256;
  const std::string delimiter = Delimiter(kBoundary);
  int accepted = 0;
  for (int iteration = 0; iteration < 20000; ++iteration) {
    const std::string mutated = Mutate(base, rng);
    const std::vector<char> buffer(mutated.begin(), mutated.end());  // exact size for ASan
    const std::string_view input(buffer.data(), buffer.size());
    auto parts = ParseMultipart(input, kBoundary, limits);
    if (parts.ok()) {
      ++accepted;
      ASSERT_LE(parts->size(), limits.max_parts);
      for (const MultipartPart& part : *parts) {
        ASSERT_TRUE(ViewLiesInside(part.body, buffer.data(), buffer.size()))
            << "iteration " << iteration;
        ASSERT_FALSE(part.name.empty()) << "iteration " << iteration;
        // A part ends at the first delimiter after its headers, and the delimiter is there.
        ASSERT_EQ(part.body.find(delimiter), std::string_view::npos) << "iteration " << iteration;
        const auto end =
            static_cast<std::size_t>(part.body.data() - buffer.data()) + part.body.size();
        ASSERT_EQ(input.substr(end, delimiter.size()), delimiter) << "iteration " << iteration;
      }
    } else {
      ASSERT_EQ(parts.status().code(), StatusCode::kInvalidArgument);
    }

    const std::string header = Mutate(content_type, rng);
    const std::vector<char> header_buffer(header.begin(), header.end());
    auto boundary = MultipartBoundary(std::string_view(header_buffer.data(), header_buffer.size()));
    if (boundary.ok()) {
      ASSERT_FALSE(boundary->empty());
      ASSERT_LE(boundary->size(), 70U);
    }
  }
  // The mutations must leave enough bodies valid to exercise the success path too.
  EXPECT_GT(accepted, 100);
  std::cout << "[ accepted ] " << accepted << " of 20000 mutated bodies\n";
}

}  // namespace
}  // namespace ocr::http
