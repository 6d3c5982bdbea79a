// A file built into the binary by cmake/EmbedAssets.cmake: the Web UI's files, the searchable
// PDF's font and colour profile, the recognizer's word list. Each module that embeds files
// declares its own FindAsset over a table of these.
// Thread-safe: the tables are immutable and constant-initialised.
#pragma once

#include <string_view>

namespace ocr {

// Every view points into static storage and lives as long as the program.
struct EmbeddedFile {
  std::string_view path;          // "/" and the file's path under the embedded folder: "/app.js"
  std::string_view content_type;  // e.g. "text/javascript; charset=utf-8"
  std::string_view body;          // the file's bytes
  std::string_view etag;          // quoted body hash for ETag/If-None-Match, e.g. "\"3f2a...\""
};

}  // namespace ocr
