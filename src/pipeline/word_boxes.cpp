#include "pipeline/word_boxes.h"

#include <algorithm>

#include "pipeline/geometry.h"

namespace ocr::pipeline {

std::vector<WordSpan> SplitWords(const DecodedText& decoded, int crop_width) {
  std::vector<WordSpan> words;
  const size_t n = std::min(
      {decoded.columns.size(), decoded.char_offsets.size(), decoded.char_confidences.size()});
  const auto width = static_cast<float>(std::max(0, crop_width));
  const float cw = decoded.column_width;
  size_t i = 0;
  while (i < n) {
    auto char_text = [&](size_t k) {
      const auto begin = static_cast<size_t>(decoded.char_offsets[k]);
      const size_t end = k + 1 < decoded.char_offsets.size()
                             ? static_cast<size_t>(decoded.char_offsets[k + 1])
                             : decoded.text.size();
      return std::string_view(decoded.text).substr(begin, end - begin);
    };
    if (char_text(i) == " ") {
      ++i;
      continue;
    }
    size_t j = i;
    WordSpan word;
    double sum = 0;
    while (j < n && char_text(j) != " ") {
      word.text += char_text(j);
      sum += decoded.char_confidences[j];
      ++j;
    }
    word.confidence = static_cast<float>(sum / static_cast<double>(j - i));
    word.x0 = std::clamp((static_cast<float>(decoded.columns[i]) - 1.0f) * cw, 0.0f, width);
    word.x1 = std::clamp((static_cast<float>(decoded.columns[j - 1]) + 2.0f) * cw, 0.0f, width);
    words.push_back(std::move(word));
    i = j;
  }
  return words;
}

std::vector<Word> LocateWords(const DecodedText& decoded, const Quad& box, bool flipped180) {
  const CropGeometry g = CropGeometryOf(box);
  std::vector<Word> words;
  if (g.warp_width <= 0 || g.warp_height <= 0)
    return words;
  for (WordSpan& span : SplitWords(decoded, g.width())) {
    words.push_back({std::move(span.text), span.confidence,
                     CropRectToImage(box, flipped180, span.x0, span.x1)});
  }
  return words;
}

}  // namespace ocr::pipeline
