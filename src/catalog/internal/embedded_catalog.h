// The built-in model catalog, built into the binary by cmake/EmbedAssets.cmake:
//   /catalog.json  src/catalog/catalog.json (its schema: catalog/catalog.h)
// Thread-safe: an immutable table.
#pragma once

#include <string_view>

#include "common/embedded_file.h"

namespace ocr::catalog::internal {

using Asset = EmbeddedFile;

// The embedded file at `path`; nullptr when there is none.
const Asset* FindAsset(std::string_view path);

}  // namespace ocr::catalog::internal
