#include "pipeline/rec/ctc_decode.h"

#include <algorithm>

namespace ocr::pipeline {

DecodedText CtcGreedyDecode(std::span<const float> probs, int steps, int classes,
                            std::span<const std::string> charset) {
  DecodedText out;
  double sum = 0;
  int previous = -1;
  for (int t = 0; t < steps; ++t) {
    const float* row = probs.data() + static_cast<size_t>(t) * static_cast<size_t>(classes);
    // First maximum on ties, like numpy's argmax.
    const int best = static_cast<int>(std::max_element(row, row + classes) - row);
    if (best != 0 && best != previous) {
      out.char_offsets.push_back(static_cast<int>(out.text.size()));
      out.text += charset[static_cast<size_t>(best)];
      out.columns.push_back(t);
      out.char_confidences.push_back(row[best]);
      sum += row[best];
    }
    previous = best;
  }
  if (!out.columns.empty())
    out.confidence = static_cast<float>(sum / static_cast<double>(out.columns.size()));
  return out;
}

}  // namespace ocr::pipeline
