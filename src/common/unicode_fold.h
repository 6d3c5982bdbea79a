// Look-alike code points folded to the characters they stand for. PDFs made by common tools
// (Chromium's print-to-PDF among them) map ordinary Han characters in their text layer to Kangxi
// radicals and CJK compatibility ideographs (U+2F26 for U+5B50), so a search for the character
// misses the page. Only those blocks are folded, by their Unicode compatibility decompositions:
// not a blanket NFKC, which would also rewrite full-width forms and ligatures a user may want.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace ocr {

// `text` with every Kangxi radical (U+2F00..U+2FDF), CJK radical supplement (U+2E80..U+2EFF),
// CJK compatibility ideograph (U+F900..U+FAFF) and supplement (U+2F800..U+2FA1F) replaced by the
// one character its decomposition names; those without one (the unified ideographs of the
// compatibility block, e.g. U+FA0E) stay. Everything else, invalid UTF-8 included, is copied.
std::string FoldCompatibilityIdeographs(std::string_view text);

// Whether FoldCompatibilityIdeographs would change `text` (cheap: no allocation).
bool HasCompatibilityIdeographs(std::string_view text);

}  // namespace ocr
