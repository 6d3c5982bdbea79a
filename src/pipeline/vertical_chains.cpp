#include "pipeline/vertical_chains.h"

#include <algorithm>

#include "pipeline/geometry.h"

namespace ocr::pipeline {
namespace {

constexpr float kMaxPieceWidth = 1.2f;  // x height
constexpr float kTallPiece = 1.5f;      // height / width
constexpr float kMinOverlap = 0.5f;     // of the narrower width
constexpr float kMaxWidthRatio = 1.5f;
constexpr float kMaxGap = 0.75f;  // x mean width
constexpr float kMinChainAspect = 4.0f;

bool Continues(const Extent& above, const Extent& below) {
  const float narrower = std::min(above.width(), below.width());
  const float wider = std::max(above.width(), below.width());
  const float overlap = std::min(above.x1, below.x1) - std::max(above.x0, below.x0);
  const float gap = below.y0 - above.y1;
  return overlap >= kMinOverlap * narrower && wider <= kMaxWidthRatio * narrower &&
         gap <= kMaxGap * (above.width() + below.width()) / 2 && below.y1 > above.y1;
}

}  // namespace

std::vector<VerticalChain> VerticalChains(std::span<const Quad> boxes) {
  std::vector<Extent> extents;
  extents.reserve(boxes.size());
  for (const Quad& q : boxes)
    extents.push_back(ExtentOf(q));
  std::vector<size_t> candidates;
  for (size_t i = 0; i < boxes.size(); ++i) {
    const Extent& e = extents[i];
    if (e.width() > 0 && e.height() > 0 && e.width() <= kMaxPieceWidth * e.height())
      candidates.push_back(i);
  }
  std::sort(candidates.begin(), candidates.end(),
            [&](size_t a, size_t b) { return extents[a].y0 < extents[b].y0; });
  std::vector<bool> used(boxes.size(), false);
  std::vector<VerticalChain> chains;
  for (size_t c = 0; c < candidates.size(); ++c) {
    if (used[candidates[c]])
      continue;
    // Grow the chain downwards from its top piece, to each next piece down that continues it.
    std::vector<size_t> members = {candidates[c]};
    for (size_t d = c + 1; d < candidates.size(); ++d) {
      const size_t next = candidates[d];
      if (!used[next] && Continues(extents[members.back()], extents[next]))
        members.push_back(next);
    }
    if (members.size() < 2)
      continue;
    Extent all = extents[members.front()];
    int tall = 0;
    float widths = 0;
    for (size_t m : members) {
      const Extent& e = extents[m];
      all = {std::min(all.x0, e.x0), std::min(all.y0, e.y0), std::max(all.x1, e.x1),
             std::max(all.y1, e.y1)};
      tall += e.height() >= kTallPiece * e.width() ? 1 : 0;
      widths += e.width();
    }
    const float mean_width = widths / static_cast<float>(members.size());
    if (tall < 2 || all.height() < kMinChainAspect * mean_width)
      continue;
    for (size_t m : members)
      used[m] = true;
    chains.push_back({std::move(members), Quad{Point{all.x0, all.y0}, Point{all.x1, all.y0},
                                               Point{all.x1, all.y1}, Point{all.x0, all.y1}}});
  }
  return chains;
}

}  // namespace ocr::pipeline
