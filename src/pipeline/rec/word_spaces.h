// Word spaces the recognizer saw but did not write. PP-OCR's multilingual recognizers often give
// the blank, not the space class, the columns between two Latin words ("TotalAmount"), a
// complaint as old as the models. The space class still rises in those columns: measured on the
// synthetic pages (docs/benchmarks/accuracy.md, "Word spaces"), it reaches 0.05 in 97% of the gaps
// between Latin characters where the page has a space and in 0.02% of those inside words, while
// the columns' own spacing (8 input pixels each, 2 to 3 per letter) cannot tell the two apart.
// Thread-safety: pure functions.
#pragma once

#include "pipeline/rec/ctc_decode.h"

namespace ocr::pipeline {

// The space class's probability in a gap from which the gap is a word space: between two Latin
// characters, and where a Latin letter or digit meets a CJK character. A change of script is a
// word boundary already, and there the space class stays under 0.005 in all of 129 measured gaps
// without a space, while 82% of the 353 gaps with one pass it.
inline constexpr float kWordSpaceEvidence = 0.05f;
inline constexpr float kScriptChangeSpaceEvidence = 0.005f;

// Writes a space between two characters of `decoded` where the space class reached the evidence
// above in the blank columns between them (DecodedText::space_before) and
// - both are Latin characters (letters, digits, ASCII punctuation other than an underscore) and
//   those columns are at least the line's usual gap between two letters (the median over its
//   neighbouring Latin characters), or more than it where the line is letter-spaced (a ticket's
//   "H a n g Z h o u": evidence in more than half its gaps); or
// - one is a Latin letter or digit and the other a Han, Kana or Hangul character.
// Never between two CJK characters or beside full-width punctuation. Then removes doubled spaces
// and spaces at either end. The per-character vectors follow the text, so word boxes follow the
// new words; the line's confidence is unchanged (a space written here was not the recognizer's
// best class).
void InsertWordSpaces(DecodedText& decoded);

}  // namespace ocr::pipeline
