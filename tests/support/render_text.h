// Renders text to a PNG with a real font (pango-view from Debian's pango1.0-tools and DejaVu
// Sans), so end-to-end tests have inputs with known text even without ../shared/testdata.
#pragma once

#include <filesystem>
#include <string>

namespace ocr::testing {

// Writes `text` (lines separated by '\n') in black on white to a new PNG in the test temp dir.
// Returns an empty path when pango-view is unavailable (callers GTEST_SKIP with a message). The
// PNG is removed when the test process ends.
std::filesystem::path RenderTextPng(const std::string& text, int font_points = 28,
                                    int margin_px = 30);

}  // namespace ocr::testing
