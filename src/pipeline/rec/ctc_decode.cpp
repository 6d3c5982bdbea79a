#include "pipeline/rec/ctc_decode.h"

#include <algorithm>

namespace ocr::pipeline {

DecodedText CtcGreedyDecode(std::span<const float> probs, int steps, int classes,
                            std::span<const std::string> charset) {
  DecodedText out;
  // PaddleOCR dictionaries append the space class last, so the search from the end is one step.
  const auto space = std::find(charset.rbegin(), charset.rend(), " ");
  const int space_class =
      space == charset.rend() ? -1 : static_cast<int>(charset.rend() - space) - 1;
  double sum = 0;
  int previous = -1;
  float gap_space = 0;  // the space class's best in blank columns since the last kept character
  int blanks = 0;       // blank columns since the last kept character
  for (int t = 0; t < steps; ++t) {
    const float* row = probs.data() + static_cast<size_t>(t) * static_cast<size_t>(classes);
    // First maximum on ties, like numpy's argmax.
    const int best = static_cast<int>(std::max_element(row, row + classes) - row);
    if (best == 0) {
      ++blanks;
      if (space_class > 0)
        gap_space = std::max(gap_space, row[space_class]);
    }
    if (best != 0 && best != previous) {
      out.char_offsets.push_back(static_cast<int>(out.text.size()));
      out.text += charset[static_cast<size_t>(best)];
      out.columns.push_back(t);
      out.char_confidences.push_back(row[best]);
      out.space_before.push_back(out.columns.size() == 1 ? 0.0f : gap_space);
      out.blanks_before.push_back(out.columns.size() == 1 ? 0 : blanks);
      gap_space = 0;
      blanks = 0;
      sum += row[best];
    }
    previous = best;
  }
  if (!out.columns.empty())
    out.confidence = static_cast<float>(sum / static_cast<double>(out.columns.size()));
  return out;
}

}  // namespace ocr::pipeline
