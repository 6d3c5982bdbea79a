// Layout analysis: columns, rows, paragraphs and headings.
//
// The geometry works on one axis-aligned summary per line (Geom): its horizontal extent from the
// quad's corners, and its vertical centre and height from the quad's left and right edges, so a
// slanted line keeps its true height instead of the taller height of its bounding rectangle.
// Every threshold is a multiple of the page's median line height, so the same constants hold at
// any resolution and font size, and a few headings or stray boxes do not move them.
#include "document/layout.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ocr::document {

using pipeline::Point;
using pipeline::Quad;
using pipeline::TextLine;

namespace {

// --- Thresholds, in units of the page's median line height (h) unless the name says otherwise.

// Whitespace between columns must be at least this wide. The space between words of one line is
// about 0.3-0.5 h, so two boxes a word apart on one row never look like two columns.
constexpr float kMinGutterWidth = 1.0F;

// The lines on each side of a gutter must span at least this width to be a column of text. This
// keeps a narrow column of numbers or labels (receipt prices, form keys) read row by row with its
// neighbours ("Milk 2.99") instead of as a column of its own.
constexpr float kMinColumnWidth = 5.0F;

// Two boxes are on one row when their vertical centres are closer than this fraction of the
// smaller box's height, that is when they overlap vertically by more than half of it.
constexpr float kSameRowFraction = 0.5F;

// A vertical gap between two rows wider than this starts a new paragraph. Lines of a paragraph are
// apart by their leading (about 0.2-0.5 h, less once the detector has padded the boxes), while a
// blank line between paragraphs is about 1 h.
constexpr float kParagraphGap = 0.8F;

// A left edge that moves right by more than this starts a new paragraph (an indented first line).
// Detector jitter on left edges is a few pixels, far below 1 h, and a first-line indent is 1-3 em
// (a box is roughly 1-1.5 em tall once padded).
constexpr float kIndent = 1.0F;

// A row at least this much taller than the page's median line is a heading: body text varies by
// well under 20% between lines, while headings are set at least ~1.4x larger.
constexpr float kHeadingHeight = 1.4F;

// Consecutive rows whose heights differ by at least this factor are different kinds of text (body
// and footnote, caption or heading) and never share a paragraph.
constexpr float kHeightChange = 1.4F;

// Pixels. A page whose median line is less tall than this has no usable geometry (boxes left
// empty), and a single box is never treated as less tall than this (no division by zero).
constexpr float kMinHeightPx = 1.0F;

// Pixels. Coordinates are clamped to this range (and NaN becomes 0): far beyond any image we
// accept, yet small enough that sums and differences of coordinates stay finite in float.
constexpr float kMaxCoordinatePx = 1e7F;

// Nesting limit for column splitting. Real pages nest two or three levels (columns inside a band
// below a title); the bound only caps the cost of adversarial box sets.
constexpr int kMaxLayoutDepth = 32;

// One line reduced to what the layout needs. `index` points into the texts of GroupParagraphs.
struct Geom {
  std::size_t index = 0;
  float left = 0;
  float right = 0;
  float center_y = 0;
  float height = 0;

  float Top() const { return center_y - height / 2; }

  float Bottom() const { return center_y + height / 2; }
};

using Block = std::vector<Geom>;  // the lines of one column (or of one run of spanning lines)

// Same-row boxes of a block, joined.
struct Row {
  std::string text;
  float left = 0;
  float top = 0;
  float bottom = 0;
  float height = 0;
};

float SaneCoordinate(float v) {
  if (std::isnan(v)) {
    return 0;
  }
  return std::clamp(v, -kMaxCoordinatePx, kMaxCoordinatePx);
}

float Distance(Point a, Point b) {
  return std::hypot(a.x - b.x, a.y - b.y);
}

Geom Measure(const TextLine& line, std::size_t index) {
  Quad q = line.box;
  for (Point& p : q) {
    p.x = SaneCoordinate(p.x);
    p.y = SaneCoordinate(p.y);
  }
  Geom g;
  g.index = index;
  g.left = std::min({q[0].x, q[1].x, q[2].x, q[3].x});
  g.right = std::max({q[0].x, q[1].x, q[2].x, q[3].x});
  g.center_y = (q[0].y + q[1].y + q[2].y + q[3].y) / 4;
  // Mean of the left (top-left to bottom-left) and right edges: the text height whatever the slant.
  g.height = (Distance(q[0], q[3]) + Distance(q[1], q[2])) / 2;
  return g;
}

// The median, or 0 for no values.
float Median(std::vector<float> values) {
  if (values.empty()) {
    return 0;
  }
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// --- Columns.

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
  explicit EdgeIndex(const std::vector<Geom>& lines) {
    std::vector<Geom> by_right = lines;
    std::sort(by_right.begin(), by_right.end(),
              [](const Geom& a, const Geom& b) { return a.right < b.right; });
    std::vector<Geom> by_left = lines;
    std::sort(by_left.begin(), by_left.end(),
              [](const Geom& a, const Geom& b) { return a.left < b.left; });
    for (const Geom& g : by_right) {
      rights_.push_back(g.right);
      min_left_upto_.push_back(min_left_upto_.empty() ? g.left
                                                      : std::min(min_left_upto_.back(), g.left));
    }
    for (const Geom& g : by_left) {
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
std::optional<Gutter> FindGutter(const std::vector<Geom>& lines, float h) {
  std::vector<float> xs;
  xs.reserve(lines.size() * 2);
  for (const Geom& g : lines) {
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
  for (const Geom& g : lines) {
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

void AppendBlocks(std::vector<Block> more, std::vector<Block>& blocks) {
  blocks.insert(blocks.end(), std::make_move_iterator(more.begin()),
                std::make_move_iterator(more.end()));
}

// Splits `lines` into blocks in reading order: columns left to right; where lines span the
// gutter, they cut the page into horizontal bands read top to bottom, each band's columns read
// before the spanning lines below it.
std::vector<Block> SplitColumns(std::vector<Geom> lines, float h, int depth) {
  std::optional<Gutter> gutter;
  if (depth < kMaxLayoutDepth) {
    gutter = FindGutter(lines, h);
  }
  if (!gutter) {
    return {std::move(lines)};
  }
  Block left;
  Block right;
  Block spanning;
  for (const Geom& g : lines) {
    if (g.right <= gutter->start) {
      left.push_back(g);
    } else if (g.left >= gutter->end) {
      right.push_back(g);
    } else {
      spanning.push_back(g);
    }
  }
  std::vector<Block> blocks;
  if (spanning.empty()) {
    AppendBlocks(SplitColumns(std::move(left), h, depth + 1), blocks);
    AppendBlocks(SplitColumns(std::move(right), h, depth + 1), blocks);
    return blocks;
  }

  std::sort(spanning.begin(), spanning.end(), [](const Geom& a, const Geom& b) {
    return a.center_y != b.center_y ? a.center_y < b.center_y : a.index < b.index;
  });
  // bands[i] holds the non-spanning lines between spanning lines i - 1 and i (by centre).
  std::vector<Block> bands(spanning.size() + 1);
  for (Block* side : {&left, &right}) {
    for (const Geom& g : *side) {
      const auto band = std::upper_bound(spanning.begin(), spanning.end(), g.center_y,
                                         [](float y, const Geom& s) { return y < s.center_y; }) -
                        spanning.begin();
      bands[static_cast<std::size_t>(band)].push_back(g);
    }
  }
  // Spanning lines with no band between them read as one block, so they can form a paragraph.
  Block run;
  for (std::size_t i = 0; i < bands.size(); ++i) {
    if (!bands[i].empty()) {
      if (!run.empty()) {
        blocks.push_back(std::move(run));
        run.clear();
      }
      AppendBlocks(SplitColumns(std::move(bands[i]), h, depth + 1), blocks);
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

// --- Rows and paragraphs.

// The block's lines top to bottom, boxes on one row joined left to right with a space.
std::vector<Row> BuildRows(Block block, const std::vector<std::string>& texts) {
  std::sort(block.begin(), block.end(), [](const Geom& a, const Geom& b) {
    if (a.center_y != b.center_y) {
      return a.center_y < b.center_y;
    }
    return a.left != b.left ? a.left < b.left : a.index < b.index;
  });
  std::vector<Row> rows;
  std::size_t begin = 0;
  while (begin < block.size()) {
    // A row is anchored on its topmost box, so a slow drift of centres cannot chain rows together.
    const Geom& anchor = block[begin];
    std::size_t end = begin + 1;
    while (end < block.size() &&
           block[end].center_y - anchor.center_y <
               kSameRowFraction * std::min(anchor.height, block[end].height)) {
      ++end;
    }
    std::sort(block.begin() + static_cast<std::ptrdiff_t>(begin),
              block.begin() + static_cast<std::ptrdiff_t>(end), [](const Geom& a, const Geom& b) {
                return a.left != b.left ? a.left < b.left : a.index < b.index;
              });
    Row row;
    row.left = block[begin].left;
    row.top = block[begin].Top();
    row.bottom = block[begin].Bottom();
    for (std::size_t i = begin; i < end; ++i) {
      const Geom& g = block[i];
      if (i > begin) {
        row.text += ' ';
      }
      row.text += texts[g.index];
      row.top = std::min(row.top, g.Top());
      row.bottom = std::max(row.bottom, g.Bottom());
      row.height = std::max(row.height, g.height);
    }
    rows.push_back(std::move(row));
    begin = end;
  }
  return rows;
}

bool IsHeading(const Row& row, float h) {
  return row.height >= kHeadingHeight * h;
}

// Whether `row` starts a new paragraph after `prev`; `prev_is_first` when `prev` starts the
// paragraph it is in.
bool BreaksBefore(const Row& prev, const Row& row, bool prev_is_first, float h) {
  if (IsHeading(prev, h) != IsHeading(row, h)) {
    return true;
  }
  if (std::max(prev.height, row.height) >= kHeightChange * std::min(prev.height, row.height)) {
    return true;
  }
  if (row.top - prev.bottom > kParagraphGap * h) {
    return true;
  }
  const float indent = row.left - prev.left;
  if (indent > kIndent * h) {
    return true;
  }
  // Moving back left after the first line is the rest of a paragraph whose first line was
  // indented; after two lines at one indentation it ends an indented block (a quotation).
  return -indent > kIndent * h && !prev_is_first;
}

void AppendParagraphs(const std::vector<Row>& rows, float h, std::vector<Paragraph>& paragraphs) {
  bool prev_is_first = false;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i == 0 || BreaksBefore(rows[i - 1], rows[i], prev_is_first, h)) {
      paragraphs.push_back(Paragraph{{}, IsHeading(rows[i], h)});
      prev_is_first = true;
    } else {
      prev_is_first = false;
    }
    paragraphs.back().lines.push_back(rows[i].text);
  }
}

}  // namespace

std::string NormalizeText(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r') {
      c = ' ';
    }
  }
  const std::size_t first = out.find_first_not_of(' ');
  if (first == std::string::npos) {
    return {};
  }
  const std::size_t last = out.find_last_not_of(' ');
  return out.substr(first, last - first + 1);
}

std::vector<Paragraph> GroupParagraphs(std::span<const TextLine> lines) {
  std::vector<std::string> texts;
  std::vector<Geom> geoms;
  for (const TextLine& line : lines) {
    std::string text = NormalizeText(line.text);
    if (text.empty()) {
      continue;  // nothing to show, and an empty box must not split a paragraph or a column
    }
    geoms.push_back(Measure(line, texts.size()));
    texts.push_back(std::move(text));
  }
  if (geoms.empty()) {
    return {};
  }
  std::vector<float> heights;
  heights.reserve(geoms.size());
  for (const Geom& g : geoms) {
    heights.push_back(g.height);
  }
  const float h = Median(std::move(heights));
  std::vector<Paragraph> paragraphs;
  if (h < kMinHeightPx) {
    // No geometry to go on: keep the recognizer's lines, in order, rather than guess a layout.
    for (std::string& text : texts) {
      paragraphs.push_back(Paragraph{{std::move(text)}, false});
    }
    return paragraphs;
  }
  for (Geom& g : geoms) {
    g.height = std::max(g.height, kMinHeightPx);
  }
  for (Block& block : SplitColumns(std::move(geoms), h, 0)) {
    AppendParagraphs(BuildRows(std::move(block), texts), h, paragraphs);
  }
  return paragraphs;
}

}  // namespace ocr::document
