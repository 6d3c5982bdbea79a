// The word lists the recognizer's lexicon is built from, built into the binary by
// cmake/EmbedAssets.cmake:
//   /words.txt  English: the words of Debian's wamerican list that are ASCII letters only, one a
//               line (src/pipeline/CMakeLists.txt filters it when the build is configured).
// Thread-safe: an immutable table.
#pragma once

#include <string_view>

#include "common/embedded_file.h"

namespace ocr::pipeline::internal {

using Asset = EmbeddedFile;

// The embedded file at `path`; nullptr when there is none.
const Asset* FindAsset(std::string_view path);

}  // namespace ocr::pipeline::internal
