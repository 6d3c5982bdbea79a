// Greedy CTC decoding of a recognizer's per-column class probabilities.
// Thread-safety: pure function.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace ocr::pipeline {

struct DecodedText {
  std::string text;                     // UTF-8
  float confidence = 0;                 // mean of the kept columns' max probabilities; 0 when empty
  std::vector<int> columns;             // column index of each kept character (for word boxes)
  std::vector<int> char_offsets;        // byte offset in `text` where each kept character starts
  std::vector<float> char_confidences;  // max probability of each kept character's column
  // Per kept character: the highest probability the space class reached in the blank columns
  // between the previous kept character and this one (0 for the first character, or without a
  // space class). A word gap the recognizer saw but lost to the blank shows up here
  // (pipeline/rec/word_spaces.h).
  std::vector<float> space_before;
  // Per kept character: how many columns since the previous kept character's last column were
  // blank (0 for the first character).
  std::vector<int> blanks_before;
  // Width of one column in the crop's own pixels (the recognizer's padded input width over the
  // number of steps, scaled by crop width / resized width). 0 when unknown (CtcGreedyDecode
  // alone); TextRecognizer fills it.
  float column_width = 0;
};

// `probs` holds steps x classes floats. `charset[0]` is the CTC blank; charset[k] is the text of
// class k. Takes the best class per column, collapses repeats, drops blanks. The class whose text
// is " ", when there is one, feeds `space_before`.
// REQUIRES: charset.size() == classes.
DecodedText CtcGreedyDecode(std::span<const float> probs, int steps, int classes,
                            std::span<const std::string> charset);

}  // namespace ocr::pipeline
