// Columns and their reading order: the gutter search (FindGutter) and the recursive split of a
// page's lines into columns and bands (SplitColumns).
#include "layout/internal/columns.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <utility>
#include <vector>

#include "layout/internal/coordinates.h"

namespace ocr::layout::internal {
namespace {

// --- Thresholds, in units of the page's median line height (h) unless the name says otherwise.

// Whitespace between columns must be at least this wide. The space between words of one line is
// about 0.3-0.5 h, so two boxes a word apart on one row never look like two columns.
constexpr float kMinGutterWidth = 1.0F;

// The lines on each side of a gutter must span at least this width to be a column of text. This
// keeps a narrow column of numbers or labels (receipt prices, form keys) read row by row with its
// neighbours ("Milk 2.99") instead of as a column of its own.
constexpr float kMinColumnWidth = 5.0F;

// Nesting limit for column splitting. Real pages nest two or three levels (columns inside a band
// below a title); the bound only caps the cost of adversarial box sets.
constexpr int kMaxLayoutDepth = 32;

// A vertical strip [start, end] that separates columns; `crossers` lines cross it (spanning lines
// such as a title), all others lie entirely to its left or to its right.
struct Gutter {
  float start = 0;
  float end = 0;
  std::size_t crossers = 0;
};

// Sorted edges of a line set, to count and measure the lines on either side of a strip in
// O(log n).
class EdgeIndex {
 public:
  explicit EdgeIndex(const std::vector<LineGeom>& lines) {
    std::vector<LineGeom> by_right = lines;
    std::sort(by_right.begin(), by_right.end(),
              [](const LineGeom& a, const LineGeom& b) { return a.right < b.right; });
    std::vector<LineGeom> by_left = lines;
    std::sort(by_left.begin(), by_left.end(),
              [](const LineGeom& a, const LineGeom& b) { return a.left < b.left; });
    for (const LineGeom& g : by_right) {
      rights_.push_back(g.right);
      min_left_upto_.push_back(min_left_upto_.empty() ? g.left
                                                      : std::min(min_left_upto_.back(), g.left));
    }
    for (const LineGeom& g : by_left) {
      lefts_.push_back(g.left);
    }
    max_right_from_.resize(by_left.size());
    float max_right = -kMaxCoordinatePx;
    for (std::size_t i = by_left.size(); i-- > 0;) {
      max_right = std::max(max_right, by_left[i].right);
      max_right_from_[i] = max_right;
    }
  }

  // Lines with right <= x, and the width from their leftmost left to their rightmost right.
  std::pair<std::size_t, float> LeftOf(float x) const {
    const auto n = static_cast<std::size_t>(std::upper_bound(rights_.begin(), rights_.end(), x) -
                                            rights_.begin());
    return {n, n == 0 ? 0.0F : rights_[n - 1] - min_left_upto_[n - 1]};
  }

  // Lines with left >= x, and the width they span.
  std::pair<std::size_t, float> RightOf(float x) const {
    const auto first = static_cast<std::size_t>(std::lower_bound(lefts_.begin(), lefts_.end(), x) -
                                                lefts_.begin());
    const std::size_t n = lefts_.size() - first;
    return {n, n == 0 ? 0.0F : max_right_from_[first] - lefts_[first]};
  }

 private:
  std::vector<float> rights_;          // ascending
  std::vector<float> min_left_upto_;   // min left of the lines up to i in `rights_` order
  std::vector<float> lefts_;           // ascending
  std::vector<float> max_right_from_;  // max right of the lines from i on in `lefts_` order
};

// The best gutter of `lines`: the fewest crossing lines, then the widest, then the leftmost.
//
// The x axis is cut at every line end into elementary intervals, each covered by a count of lines.
// A candidate strip is a maximal run of intervals whose count is at most the count of one of them
// (found for every interval at once with a monotonic stack): at count 0 that is whitespace no
// line crosses; above 0 the lines crossing it are spanning lines. A candidate is a gutter when it
// is wide enough, has a column of text on each side, and is crossed by fewer lines than each
// side holds (a title over two columns, not a stray box between two halves of a paragraph).
std::optional<Gutter> FindGutter(const std::vector<LineGeom>& lines, float h) {
  std::vector<float> xs;
  xs.reserve(lines.size() * 2);
  for (const LineGeom& g : lines) {
    xs.push_back(g.left);
    xs.push_back(g.right);
  }
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  if (xs.size() < 2) {
    return std::nullopt;
  }
  const std::size_t m = xs.size() - 1;  // interval k is [xs[k], xs[k + 1]]
  auto index_of = [&xs](float x) {
    return static_cast<std::size_t>(std::lower_bound(xs.begin(), xs.end(), x) - xs.begin());
  };
  std::vector<std::int64_t> delta(m + 1, 0);
  for (const LineGeom& g : lines) {
    ++delta[index_of(g.left)];
    --delta[index_of(g.right)];
  }
  std::vector<std::int64_t> count(m);
  std::int64_t running = 0;
  for (std::size_t k = 0; k < m; ++k) {
    running += delta[k];
    count[k] = running;
  }

  // first[k]..last[k]: the maximal run around k of intervals whose count is <= count[k].
  std::vector<std::size_t> first(m);
  std::vector<std::size_t> last(m);
  std::vector<std::size_t> stack;
  for (std::size_t k = 0; k < m; ++k) {
    while (!stack.empty() && count[stack.back()] <= count[k]) {
      stack.pop_back();
    }
    first[k] = stack.empty() ? 0 : stack.back() + 1;
    stack.push_back(k);
  }
  stack.clear();
  for (std::size_t k = m; k-- > 0;) {
    while (!stack.empty() && count[stack.back()] <= count[k]) {
      stack.pop_back();
    }
    last[k] = stack.empty() ? m - 1 : stack.back() - 1;
    stack.push_back(k);
  }

  const EdgeIndex edges(lines);
  std::optional<Gutter> best;
  for (std::size_t k = 0; k < m; ++k) {
    const float start = xs[first[k]];
    const float end = xs[last[k] + 1];
    const float width = end - start;
    if (width < kMinGutterWidth * h) {
      continue;
    }
    const auto [left_count, left_width] = edges.LeftOf(start);
    const auto [right_count, right_width] = edges.RightOf(end);
    if (left_count == 0 || right_count == 0 || left_width < kMinColumnWidth * h ||
        right_width < kMinColumnWidth * h) {
      continue;
    }
    const std::size_t crossers = lines.size() - left_count - right_count;
    if (crossers >= std::min(left_count, right_count)) {
      continue;
    }
    if (!best || crossers < best->crossers ||
        (crossers == best->crossers && width > best->end - best->start)) {
      best = Gutter{start, end, crossers};
    }
  }
  return best;
}

void AppendColumns(std::vector<Column> more, std::vector<Column>& blocks) {
  blocks.insert(blocks.end(), std::make_move_iterator(more.begin()),
                std::make_move_iterator(more.end()));
}

}  // namespace

std::vector<Column> SplitColumns(std::vector<LineGeom> lines, float h, int depth) {
  std::optional<Gutter> gutter;
  if (depth < kMaxLayoutDepth) {
    gutter = FindGutter(lines, h);
  }
  if (!gutter) {
    return {std::move(lines)};
  }
  Column left;
  Column right;
  Column spanning;
  for (const LineGeom& g : lines) {
    if (g.right <= gutter->start) {
      left.push_back(g);
    } else if (g.left >= gutter->end) {
      right.push_back(g);
    } else {
      spanning.push_back(g);
    }
  }
  std::vector<Column> blocks;
  if (spanning.empty()) {
    AppendColumns(SplitColumns(std::move(left), h, depth + 1), blocks);
    AppendColumns(SplitColumns(std::move(right), h, depth + 1), blocks);
    return blocks;
  }

  std::sort(spanning.begin(), spanning.end(), [](const LineGeom& a, const LineGeom& b) {
    return a.center_y != b.center_y ? a.center_y < b.center_y : a.index < b.index;
  });
  // bands[i] holds the non-spanning lines between spanning lines i - 1 and i (by centre).
  std::vector<Column> bands(spanning.size() + 1);
  for (Column* side : {&left, &right}) {
    for (const LineGeom& g : *side) {
      const auto band =
          std::upper_bound(spanning.begin(), spanning.end(), g.center_y,
                           [](float y, const LineGeom& s) { return y < s.center_y; }) -
          spanning.begin();
      bands[static_cast<std::size_t>(band)].push_back(g);
    }
  }
  // Spanning lines with no band between them read as one block, so they can form a paragraph.
  Column run;
  for (std::size_t i = 0; i < bands.size(); ++i) {
    if (!bands[i].empty()) {
      if (!run.empty()) {
        blocks.push_back(std::move(run));
        run.clear();
      }
      AppendColumns(SplitColumns(std::move(bands[i]), h, depth + 1), blocks);
    }
    if (i < spanning.size()) {
      run.push_back(spanning[i]);
    }
  }
  if (!run.empty()) {
    blocks.push_back(std::move(run));
  }
  return blocks;
}

}  // namespace ocr::layout::internal
