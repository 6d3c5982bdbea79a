// The route table against the OpenAPI description the server publishes: every route the Api
// answers is documented under its path and method, and /docs lists each.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/text.h"
#include "http/api.h"
#include "http/openapi.h"

namespace ocr::http {
namespace {

TEST(RouteTableTest, OpenApiDescribesEveryRouteOfTheTable) {
  const nlohmann::json spec = nlohmann::json::parse(OpenApiJson());
  const auto routes = Api::RouteList();
  ASSERT_FALSE(routes.empty());
  for (const auto& [method, path] : routes) {
    std::string verb(method);
    std::transform(verb.begin(), verb.end(), verb.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    ASSERT_TRUE(spec["paths"].contains(std::string(path))) << path;
    EXPECT_TRUE(spec["paths"][std::string(path)].contains(verb)) << method << " " << path;
  }
}

// How often `needle` occurs in `text`.
std::size_t Count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

// /docs: a table of contents with the OCR and job routes first, every route of the table in it
// once, and the errors that every route may answer listed once rather than under each route.
TEST(RouteTableTest, DocsListEveryRouteOnceOcrFirstAndTheCommonErrorsOnce) {
  const std::string& html = DocsHtml();
  const std::size_t start = html.find("<nav class=\"toc\">");
  ASSERT_NE(start, std::string::npos);
  const std::string toc = html.substr(start, html.find("</nav>", start) - start);
  for (const auto& [method, path] : Api::RouteList()) {
    EXPECT_EQ(Count(toc, std::string(method) + " <code>" + std::string(path) + "</code>"), 1u)
        << method << " " << path;
  }
  const std::size_t ocr = toc.find("POST <code>/ocr</code>");
  EXPECT_LT(ocr, toc.find("POST <code>/marker/upload</code>"));
  EXPECT_LT(toc.find("GET <code>/jobs/{id}/pages/{n}/image</code>"),
            toc.find("GET <code>/healthz</code>"));
  EXPECT_EQ(toc.find("<code>"), toc.find("<code>/ocr</code>")) << "the first route is POST /ocr";

  const nlohmann::json spec = nlohmann::json::parse(OpenApiJson());
  int common = 0;
  for (const auto& [name, response] : spec["components"]["responses"].items()) {
    if (!response.value("x-common", false))
      continue;
    ++common;
    EXPECT_EQ(Count(html, EscapeHtml(response["description"].get<std::string>())), 1u) << name;
  }
  EXPECT_GE(common, 5);
  EXPECT_EQ(Count(html, "id=\"common-errors\""), 1u);
}

}  // namespace
}  // namespace ocr::http
