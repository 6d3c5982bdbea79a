// Unsure Latin words read again against a lexicon. Most words a recognizer gets wrong on a poor
// scan are ordinary words wrong by a letter (`SPECLAL`, `Ncvember`, `bcing`), and the right letter
// is usually the runner-up in its CTC columns. For a word the recognizer was unsure of and that is
// no word of the lexicon, the lexicon's words within an edit or two are scored on the word's own
// columns (the CTC probability of spelling each, over every alignment, in lowercase, capitalized
// and upper case), and the best replaces the reading when it is at most `margin` nats less
// probable than the reading itself (a shorter word: at least as probable): the columns must
// nearly say it, the lexicon only breaks the doubt. Numbers, codes, acronyms (capitals inside a
// word, or fewer than five in a row), words with digits or other scripts, and words read surely
// are never touched; an I or L inside a lowercase word of five letters or more is taken for a
// misread stem (`quesLions`), not an acronym's capital.
// Thread-safety: pure functions.
#pragma once

#include <array>
#include <span>
#include <string>

#include "pipeline/rec/ctc_decode.h"
#include "pipeline/rec/lexicon.h"

namespace ocr::pipeline {

struct LexiconRule {
  // A word is unsure when one of its letters' columns gave that letter less than this.
  float unsure = 0.9f;
  // Nats: how much less probable than the reading a lexicon word may be and still replace it
  // (e^-5, about 1/150). Measured on the forms set and the real 100-dpi pages
  // (docs/benchmarks/accuracy.md, "Lexicon"): from 3 to 5 nats it finds 14 more true words and
  // loses none; at 8 it loses some.
  double margin = 5.0;
  // The same for a word shorter than the reading: dropping a letter costs the columns little
  // where the blank is its runner-up, as beside every narrow letter, so a shorter word must be at
  // least as probable as the reading ("RMI" is no "RM", "git" no "gi").
  double shorter_margin = 0.0;
};

// The class of each ASCII letter and of the space in a recognizer's charset (-1: none).
struct LatinClasses {
  std::array<int, 128> letter{};
  int space = -1;
};

LatinClasses LatinClassesOf(std::span<const std::string> charset);

// Corrects the unsure words of `decoded`, read from `probs` (steps x classes), as said above. A
// replaced word's characters take their columns and confidences from its most probable alignment.
// The line's confidence stays the recognizer's for its best path: it is what the second reading
// (rec/second_reading.h) and drop_score compare, and a word the lexicon chose is not surer.
void CorrectUnsureWords(DecodedText& decoded, std::span<const float> probs, int steps, int classes,
                        const LatinClasses& latin, const Lexicon& lexicon,
                        const LexiconRule& rule = {});

// A period read between an English word and a lowercase letter where the page has a word gap
// ("discussed.at", "Your.answers"): a speck of scan noise in the gap reads as the period, and the
// space class rises in the period's own columns rather than in the blank columns after it. The
// period becomes a space where the space class reaches kWordSpaceEvidence (rec/word_spaces.h) in
// its own columns but not after it, and the letters before it are an English word of two letters
// or more. A period inside an abbreviation or a name shows no space at all ("P.O.", "Node.js"),
// an initial is no word, and a sentence goes on with a capital ("imputed.Further"). A comma is
// left alone: a real comma whose space was lost holds the gap in its own columns too
// ("Further,in").
// Run before CorrectUnsureWords, so that the words on either side are read as words.
void ReadStrayMarksAsSpaces(DecodedText& decoded, std::span<const float> probs, int steps,
                            int classes, const LatinClasses& latin, const Lexicon& lexicon);

// The natural log of the CTC probability that columns [t0, t1) of `probs` (steps x classes, class
// 0 the blank) spell `labels`, summed over every alignment; -infinity when they cannot.
double CtcLogProbability(std::span<const float> probs, int classes, int t0, int t1,
                         std::span<const int> labels);

}  // namespace ocr::pipeline
