// The files the searchable PDF embeds, built into the binary by cmake/EmbedAssets.cmake:
//   /glyphless.ttf  the text layer's TrueType font (one blank glyph, half an em wide, ascent 1000
//                   and descent 0 so a selection covers the word's box), written at build time by
//                   glyphless_font.py with Debian's fontTools;
//   /sRGB.icc       the PDF/A output intent's profile, icc-profiles-free's sRGB.icc.
// Thread-safe: an immutable table.
#pragma once

#include <string_view>

#include "common/embedded_file.h"

namespace ocr::pdf::internal {

using Asset = EmbeddedFile;

// The embedded file at `path`; nullptr when there is none.
const Asset* FindAsset(std::string_view path);

}  // namespace ocr::pdf::internal
