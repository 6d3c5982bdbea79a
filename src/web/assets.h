// The Web UI's static files (index.html, its ES modules and stylesheets), embedded at build time by
// cmake/EmbedAssets.cmake into a generated .cpp in the build tree. Thread-safe: the table is
// immutable and constant-initialised.
#pragma once

#include <string_view>

#include "common/embedded_file.h"

namespace ocr::web {

using Asset = EmbeddedFile;

// Returns the asset served at `path` (the request target without query string), or nullptr when
// there is none. "/" maps to "/index.html". The returned pointer is valid for the whole program.
const Asset* FindAsset(std::string_view path);

}  // namespace ocr::web
