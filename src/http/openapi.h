// The OpenAPI 3 description of the HTTP API (src/http/openapi.json, embedded at build time with
// the project version filled in) and the /docs page rendered from it, with no external assets.
// Thread-safety: the returned strings are built once and immutable.
#pragma once

#include <string>

namespace ocr::http {

const std::string& OpenApiJson();

// An HTML page listing every route, its request body, responses and the schemas; styled by
// DocsCss() served at /docs.css (the page carries no inline style or script, for the CSP).
const std::string& DocsHtml();

const std::string& DocsCss();

}  // namespace ocr::http
