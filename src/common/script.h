// Which writing system a character belongs to, in the coarse classes that decide how OCR text is
// spaced and punctuated: Latin text separates words with spaces and uses ASCII punctuation; Han,
// Kana and Hangul text does not space its characters and uses full-width punctuation.
// Thread-safety: pure functions.
#pragma once

#include <string_view>

namespace ocr {

enum class ScriptClass {
  kLatinLetter,  // a letter of the Latin script, or an ASCII digit (numbers read with Latin words)
  kLatinMark,    // ASCII punctuation and symbols (printable, not a letter, digit or space)
  kCjk,          // a Han ideograph, Hiragana, Katakana or a Hangul syllable or letter
  kOther,        // spaces, full-width and other punctuation, other scripts, invalid UTF-8
};

// The class of a code point, from ICU's script and general-category data.
ScriptClass ClassifyScript(char32_t c);

// The class of the first code point of UTF-8 `s` (kOther when empty or invalid).
ScriptClass ClassifyScript(std::string_view s);

}  // namespace ocr
