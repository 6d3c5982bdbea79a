// The route table against the OpenAPI description the server publishes: every route the Api
// answers is documented under its path and method.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

}  // namespace
}  // namespace ocr::http
