#include "document/internal/line_words.h"

#include <algorithm>
#include <cmath>

#include "common/utf8.h"
#include "pipeline/geometry.h"

namespace ocr::document::internal {
namespace {

// Code points of `text` (invalid bytes count as one each).
std::size_t CountCodePoints(std::string_view text) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < text.size(); ++n)
    (void)NextCodePoint(text, i);
  return n;
}

pipeline::Point Lerp(const pipeline::Point& a, const pipeline::Point& b, float t) {
  return {a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t};
}

}  // namespace

std::vector<PlacedWord> LineWords(const pipeline::TextLine& line) {
  std::vector<PlacedWord> words;
  if (!line.words.empty()) {
    for (const pipeline::Word& w : line.words)
      words.push_back({w.text, w.confidence, w.box});
    return words;
  }
  // Split at spaces; each word's share of the line's length is its share of the characters.
  const std::string_view text = line.text;
  const auto total = static_cast<float>(std::max<std::size_t>(1, CountCodePoints(text)));
  const pipeline::Quad& q = line.box;  // top-left, top-right, bottom-right, bottom-left
  std::size_t start = 0;
  std::size_t chars_before = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string_view::npos)
      end = text.size();
    const std::string_view word = text.substr(start, end - start);
    const std::size_t chars = CountCodePoints(word);
    if (chars > 0) {
      const float t0 = static_cast<float>(chars_before) / total;
      const float t1 = static_cast<float>(chars_before + chars) / total;
      words.push_back({std::string(word),
                       line.confidence,
                       {Lerp(q[0], q[1], t0), Lerp(q[0], q[1], t1), Lerp(q[3], q[2], t1),
                        Lerp(q[3], q[2], t0)}});
    }
    chars_before += chars + 1;
    start = end + 1;
  }
  return words;
}

PixelBox BoundsOf(const pipeline::Quad& quad, const DocumentPage& page) {
  const auto [x0, y0, x1, y1] = pipeline::ExtentOf(quad);
  const auto clamp = [](float v, int hi) {
    if (!std::isfinite(v))
      return 0;
    return static_cast<int>(std::clamp(v, 0.0f, static_cast<float>(std::max(0, hi))));
  };
  PixelBox box{clamp(std::floor(x0), page.width), clamp(std::floor(y0), page.height),
               clamp(std::ceil(x1), page.width), clamp(std::ceil(y1), page.height)};
  box.x1 = std::max(box.x1, box.x0);
  box.y1 = std::max(box.y1, box.y0);
  return box;
}

PixelBox Union(const PixelBox& a, const PixelBox& b) {
  return {std::min(a.x0, b.x0), std::min(a.y0, b.y0), std::max(a.x1, b.x1), std::max(a.y1, b.y1)};
}

PixelBox BoundsOfLines(const DocumentPage& page, const std::vector<std::size_t>& indices) {
  if (indices.empty())
    return {};
  PixelBox area = BoundsOf(page.lines.at(indices.front()).box, page);
  for (const std::size_t i : indices)
    area = Union(area, BoundsOf(page.lines.at(i).box, page));
  return area;
}

}  // namespace ocr::document::internal
