// NormalizePath: what the routes see of a request target's path.
#include "http/request_path.h"

#include <optional>
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

// The query of GET /jobs/{id}/result?output_format= and /pages/{n}/image?max_side=.
std::optional<std::string> Query(std::string_view query, std::string_view name) {
  const Result<std::optional<std::string>> value = QueryValue(query, name);
  EXPECT_TRUE(value.ok()) << value.status().message();
  return value.ok() ? *value : std::nullopt;
}

TEST(RequestPathTest, QueryValuesAreFoundAndDecoded) {
  EXPECT_EQ(Query("output_format=markdown", "output_format"), "markdown");
  EXPECT_EQ(Query("a=1&max_side=300&max_side=9", "max_side"), "300");  // the first
  EXPECT_EQ(Query("q=a+b%20c%2Bd%26", "q"), "a b c+d&");
  EXPECT_EQ(Query("%6Dax_side=7", "max_side"), "7");  // names are decoded too
  EXPECT_EQ(Query("flag&x=1", "flag"), "");
  EXPECT_EQ(Query("x=", "x"), "");
  EXPECT_EQ(Query("", "x"), std::nullopt);
  EXPECT_EQ(Query("xy=1&&=2", "x"), std::nullopt);
  EXPECT_EQ(Query("bad=%zz&x=1", "x"), "1");  // another pair's escape is not this one's problem
}

TEST(RequestPathTest, QueryValuesWithBadEscapesAreRefused) {
  for (const char* bad : {"x=%zz", "x=%4", "x=%", "x=a%00b"}) {
    SCOPED_TRACE(bad);
    const Result<std::optional<std::string>> value = QueryValue(bad, "x");
    ASSERT_FALSE(value.ok());
    EXPECT_EQ(value.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(value.status().message().rfind("the query '", 0), 0u) << value.status().message();
  }
}

}  // namespace
}  // namespace ocr::http
