// NormalizePath: what the routes see of a request target's path.
#include "http/request_path.h"

#include <string>

#include <gtest/gtest.h>

namespace ocr::http {
namespace {

std::string Normalized(std::string_view path) {
  const Result<std::string> p = NormalizePath(path);
  return p.ok() ? *p : "<refused: " + p.status().message() + ">";
}

TEST(RequestPathTest, DecodesOnlyUnreservedCharacters) {
  EXPECT_EQ(Normalized("/healthz"), "/healthz");
  EXPECT_EQ(Normalized("/%68ealthz"), "/healthz");
  EXPECT_EQ(Normalized("/%68%65%61%6C%74%68%7a"), "/healthz");
  EXPECT_EQ(Normalized("/a%2Db%2ec%5Fd%7E"), "/a-b.c_d~");
  // Reserved and other characters keep their escapes: %2F never becomes a separator.
  EXPECT_EQ(Normalized("/jobs%2Fabc"), "/jobs%2Fabc");
  EXPECT_EQ(Normalized("/a%20b%3F%25"), "/a%20b%3F%25");
  EXPECT_EQ(Normalized("/"), "/");
  EXPECT_EQ(Normalized(""), "");
  EXPECT_EQ(Normalized("/a/./b/"), "/a/./b/");
}

TEST(RequestPathTest, RefusesMalformedEscapesNulAndDotDot) {
  for (const char* bad : {"/%zz", "/%4", "/%", "/a%g0", "/%00", "/heal%00thz", "/../healthz",
                          "/%2e%2e/healthz", "/a/%2E%2E", "/a/.%2e/b", ".."}) {
    SCOPED_TRACE(bad);
    const Result<std::string> p = NormalizePath(bad);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(p.status().message().rfind("the request path '", 0), 0u) << p.status().message();
  }
  EXPECT_EQ(Normalized("/a..b/...").find("refused"), std::string::npos);
}

TEST(RequestPathTest, MessagesEchoAShortPrintableExcerpt) {
  const std::string path = "/" + std::string(500, 'a') + "\x01%zz";
  const Result<std::string> p = NormalizePath(path);
  ASSERT_FALSE(p.ok());
  EXPECT_LT(p.status().message().size(), 160u) << p.status().message();
  EXPECT_EQ(p.status().message().find('\x01'), std::string::npos);
}

}  // namespace
}  // namespace ocr::http
