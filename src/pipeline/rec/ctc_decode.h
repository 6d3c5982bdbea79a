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
  // Width of one column in the crop's own pixels (the recognizer's padded input width over the
  // number of steps, scaled by crop width / resized width). 0 when unknown (CtcGreedyDecode
  // alone); TextRecognizer fills it.
  float column_width = 0;
};

// `probs` holds steps x classes floats. `charset[0]` is the CTC blank; charset[k] is the text of
// class k. Takes the best class per column, collapses repeats, drops blanks.
// REQUIRES: charset.size() == classes.
DecodedText CtcGreedyDecode(std::span<const float> probs, int steps, int classes,
                            std::span<const std::string> charset);

}  // namespace ocr::pipeline
