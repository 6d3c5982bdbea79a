#include "common/script.h"

#include <unicode/uchar.h>
#include <unicode/uscript.h>

#include "common/utf8.h"

namespace ocr {

ScriptClass ClassifyScript(char32_t c) {
  if (c < 0x80) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
      return ScriptClass::kLatinLetter;
    return c > ' ' && c < 0x7F ? ScriptClass::kLatinMark : ScriptClass::kOther;
  }
  const auto cp = static_cast<UChar32>(c);
  if (!u_isalpha(cp))
    return ScriptClass::kOther;
  UErrorCode status = U_ZERO_ERROR;
  switch (uscript_getScript(cp, &status)) {
    case USCRIPT_LATIN:
      return ScriptClass::kLatinLetter;
    case USCRIPT_HAN:
    case USCRIPT_HIRAGANA:
    case USCRIPT_KATAKANA:
    case USCRIPT_HANGUL:
      return ScriptClass::kCjk;
    default:
      // Iteration marks (々, 〆) are of the Common script but write Han text.
      return u_hasBinaryProperty(cp, UCHAR_IDEOGRAPHIC) ? ScriptClass::kCjk : ScriptClass::kOther;
  }
}

ScriptClass ClassifyScript(std::string_view s) {
  if (s.empty())
    return ScriptClass::kOther;
  std::size_t i = 0;
  const auto c = NextCodePoint(s, i);
  return c ? ClassifyScript(*c) : ScriptClass::kOther;
}

}  // namespace ocr
