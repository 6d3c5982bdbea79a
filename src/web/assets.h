// The Web UI's static files (index.html, its ES modules and stylesheets), embedded at build time by
// cmake/EmbedAssets.cmake into a generated .cpp in the build tree. Thread-safe: the table is
// immutable and constant-initialised.
#pragma once

#include <string_view>

namespace ocr::web {

// One embedded file. Every view points into static storage and lives as long as the program.
struct Asset {
  std::string_view path;          // request path, e.g. "/app.js"
  std::string_view content_type;  // e.g. "text/javascript; charset=utf-8"
  std::string_view body;          // the file's bytes
  std::string_view etag;          // quoted body hash for ETag/If-None-Match, e.g. "\"3f2a...\""
};

// Returns the asset served at `path` (the request target without query string), or nullptr when
// there is none. "/" maps to "/index.html". The returned pointer is valid for the whole program.
const Asset* FindAsset(std::string_view path);

}  // namespace ocr::web
