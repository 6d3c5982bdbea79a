// Layout analysis: tables, columns, rows, paragraphs, headings and list items.
//
// The geometry works on one axis-aligned summary per line (LineGeom). Every threshold is a
// multiple of the page's median line height, so the same constants hold at any resolution and
// font size, and a few headings or stray boxes do not move them. A page whose lines slope (a
// photo taken slightly askew) is analysed in a frame rotated to straighten them.
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

#include <opencv2/imgproc.hpp>

#include "document/rulings.h"
#include "document/tables.h"

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
// well under 20% between lines, while headings are set at least ~1.4x larger. Taller rows are
// higher-level headings: a title (level 1) is set at twice the body size or more, a section
// heading (level 2) at 1.6x or more.
constexpr float kHeadingHeight = 1.4F;
constexpr float kHeadingLevel2 = 1.6F;
constexpr float kHeadingLevel1 = 2.0F;

// A page is straightened for the analysis when its lines slope by more than this (radians, about
// 0.2 degrees): below it, a row drifts less than 0.1 h over 30 h of width. Beyond kMaxSkew the
// slope is not a skewed page but rotated text, which the analysis leaves alone.
constexpr double kMinSkew = 0.0035;
constexpr double kMaxSkew = 0.2;

// A line (or a row of boxes) is long enough to measure the page's slope from when it is this
// many heights wide: two pixels of jitter over 8 h is about 0.5 degrees.
constexpr float kSlopeLineWidth = 8.0F;

// The lines may hold a table (and the page image is worth asking for) when at least this many
// rows hold boxes a cell gap apart.
constexpr int kRowsForTables = 2;
constexpr float kCellGapForImage = 0.8F;

// A list item's second line is indented past the item's edge by at least this much (the marker
// and its space are about 1 em); jitter of a few pixels is not an indent.
constexpr float kHangingIndent = 0.5F;

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

using Column = std::vector<LineGeom>;  // the lines of one column (or of one run of spanning lines)

float SaneCoordinate(float v) {
  if (std::isnan(v)) {
    return 0;
  }
  return std::clamp(v, -kMaxCoordinatePx, kMaxCoordinatePx);
}

float Distance(Point a, Point b) {
  return std::hypot(a.x - b.x, a.y - b.y);
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

// Splits `lines` into blocks in reading order: columns left to right; where lines span the
// gutter, they cut the page into horizontal bands read top to bottom, each band's columns read
// before the spanning lines below it.
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

// --- Rows and blocks.

// One row of a column: its lines left to right, or a table standing in the column.
struct Row {
  std::vector<std::size_t> lines;
  const Table* table = nullptr;
  float left = 0;
  float top = 0;
  float bottom = 0;
  float height = 0;
};

// What the row and block builders need to know about the page.
struct PageText {
  const std::vector<std::string>& texts;
  const std::vector<Table>& tables;  // a stand-in's LineGeom::index - texts.size()
  float h = 0;
};

Row MakeRow(const std::vector<LineGeom>& group) {
  Row row;
  row.left = group.front().left;
  row.top = group.front().Top();
  row.bottom = group.front().Bottom();
  for (const LineGeom& g : group) {
    row.lines.push_back(g.index);
    row.top = std::min(row.top, g.Top());
    row.bottom = std::max(row.bottom, g.Bottom());
    row.height = std::max(row.height, g.height);
  }
  return row;
}

// The column's rows top to bottom. A table's stand-in is a row of its own: nothing beside it
// joins its row.
std::vector<Row> BuildRows(const Column& column, const PageText& page) {
  std::vector<Row> rows;
  std::vector<LineGeom> lines;
  for (const LineGeom& g : column) {
    if (g.index < page.texts.size()) {
      lines.push_back(g);
      continue;
    }
    Row row;
    row.table = &page.tables[g.index - page.texts.size()];
    row.left = g.left;
    row.top = g.Top();
    row.bottom = g.Bottom();
    row.height = g.height;
    rows.push_back(row);
  }
  for (const std::vector<LineGeom>& group : GroupRows(std::move(lines))) {
    rows.push_back(MakeRow(group));
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.top + a.bottom < b.top + b.bottom; });
  return rows;
}

int HeadingLevel(const Row& row, float h) {
  if (row.table != nullptr || row.height < kHeadingHeight * h) {
    return 0;
  }
  if (row.height >= kHeadingLevel1 * h) {
    return 1;
  }
  return row.height >= kHeadingLevel2 * h ? 2 : 3;
}

// Whether `row` starts a new paragraph after `prev`; `prev_is_first` when `prev` starts the
// paragraph it is in.
bool BreaksBefore(const Row& prev, const Row& row, bool prev_is_first, float h) {
  if ((HeadingLevel(prev, h) > 0) != (HeadingLevel(row, h) > 0)) {
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

// Whether `row` continues the list item `block` whose last row is `prev`: close below it and
// indented past the item's marker (a hanging indent). A row back at the marker's edge is the
// paragraph after the list.
bool ContinuesItem(const Block& block, const Row& prev, const Row& row, float h) {
  return block.type == BlockType::kListItem && row.top - prev.bottom <= kParagraphGap * h &&
         row.left - block.left > kHangingIndent * h &&
         std::max(prev.height, row.height) < kHeightChange * std::min(prev.height, row.height);
}

void AppendRows(const std::vector<Row>& rows, const PageText& page, std::vector<Block>& blocks) {
  bool prev_is_first = false;
  const Row* prev = nullptr;
  for (const Row& row : rows) {
    if (row.table != nullptr) {
      Block block;
      block.type = BlockType::kTable;
      block.table = *row.table;
      blocks.push_back(std::move(block));
      prev = nullptr;
      continue;
    }
    int number = 0;
    const bool item = ListMarker(page.texts[row.lines.front()], &number) > 0;
    if (prev != nullptr && !item && ContinuesItem(blocks.back(), *prev, row, page.h)) {
      blocks.back().rows.push_back(row.lines);
      prev = &row;
      continue;
    }
    if (prev == nullptr || item || BreaksBefore(*prev, row, prev_is_first, page.h)) {
      Block block;
      block.left = row.left;  // until SetExtent: where the block's first row starts
      const int level = HeadingLevel(row, page.h);
      if (item) {
        block.type = BlockType::kListItem;
        block.ordered = number > 0;
      } else if (level > 0) {
        block.type = BlockType::kHeading;
        block.level = level;
      }
      blocks.push_back(std::move(block));
      prev_is_first = true;
    } else {
      prev_is_first = false;
    }
    blocks.back().rows.push_back(row.lines);
    prev = &row;
  }
}

// The page's slope (radians, y down) when it is that of a slightly skewed page, else 0: the
// weighted median of the slopes of long lines' top edges and of the lines joining the centres of
// the outermost boxes of one row (a table's row spans the page while its cells are short), each
// weighted by its length. A short box's own angle is too noisy to count: two pixels of jitter
// over 3 h is more than a degree.
double PageSlope(std::span<const TextLine> lines, const std::vector<LineGeom>& geoms, float h) {
  std::vector<std::pair<double, double>> slopes;  // (slope, weight)
  for (const LineGeom& g : geoms) {
    if (g.right - g.left >= kSlopeLineWidth * h) {
      const Quad& q = lines[g.index].box;
      slopes.emplace_back(std::atan2(q[1].y - q[0].y, q[1].x - q[0].x), g.right - g.left);
    }
  }
  for (const std::vector<LineGeom>& row : GroupRows(geoms)) {
    const LineGeom& first = row.front();
    const LineGeom& last = row.back();
    const double run = last.CenterX() - first.CenterX();
    if (row.size() >= 2 && run >= kSlopeLineWidth * h) {
      slopes.emplace_back(std::atan2(last.center_y - first.center_y, run), run);
    }
  }
  if (slopes.empty()) {
    return 0.0;
  }
  std::sort(slopes.begin(), slopes.end());
  double total = 0;
  for (const auto& [slope, weight] : slopes) {
    total += weight;
  }
  double slope = slopes.back().first;
  double below = 0;
  for (const auto& [s, weight] : slopes) {
    below += weight;
    if (below >= total / 2) {
      slope = s;
      break;
    }
  }
  return std::abs(slope) >= kMinSkew && std::abs(slope) <= kMaxSkew ? slope : 0.0;
}

// Whether enough rows hold boxes a cell gap apart for a table to be possible.
bool MayHoldTable(const std::vector<LineGeom>& geoms, float h) {
  int rows = 0;
  for (const std::vector<LineGeom>& row : GroupRows(geoms)) {
    for (std::size_t i = 0; i + 1 < row.size(); ++i) {
      if (row[i + 1].left - row[i].right >= kCellGapForImage * h) {
        ++rows;
        break;
      }
    }
  }
  return rows >= kRowsForTables;
}

Point Apply(const cv::Matx23d& m, Point p) {
  return Point{static_cast<float>(m(0, 0) * p.x + m(0, 1) * p.y + m(0, 2)),
               static_cast<float>(m(1, 0) * p.x + m(1, 1) * p.y + m(1, 2))};
}

// The block's extent in page pixels: its lines' boxes, and a table's grid mapped back through
// `to_page` from the frame it was found in.
void SetExtent(Block& block, std::span<const TextLine> lines, const cv::Matx23d& to_page) {
  bool any = false;
  auto add = [&](Point p) {
    p.x = SaneCoordinate(p.x);
    p.y = SaneCoordinate(p.y);
    if (!any) {
      block.left = block.right = p.x;
      block.top = block.bottom = p.y;
      any = true;
    }
    block.left = std::min(block.left, p.x);
    block.right = std::max(block.right, p.x);
    block.top = std::min(block.top, p.y);
    block.bottom = std::max(block.bottom, p.y);
  };
  if (block.type == BlockType::kTable) {
    const Table& t = block.table;
    for (Point p : {Point{t.left, t.top}, Point{t.right, t.top}, Point{t.right, t.bottom},
                    Point{t.left, t.bottom}}) {
      add(Apply(to_page, p));
    }
  }
  for (std::size_t index : block.Lines()) {
    for (Point p : lines[index].box) {
      add(p);
    }
  }
}

// The tables among `geoms` (in the analysis frame), with the rulings of the page image turned
// into that frame when `turned`.
std::vector<Table> PageTables(const std::vector<LineGeom>& geoms,
                              const std::vector<std::string>& texts, const PageImage& page_image,
                              const cv::Matx23d& to_frame, bool turned, float h) {
  std::vector<Ruling> rulings;
  cv::Mat image = page_image ? page_image() : cv::Mat();
  if (!image.empty()) {
    if (turned) {
      cv::Mat straight;
      cv::warpAffine(image, straight, cv::Mat(to_frame), image.size(), cv::INTER_LINEAR,
                     cv::BORDER_REPLICATE);
      image = straight;
    }
    rulings = FindRulings(image, h);
  }
  return FindTables(geoms, texts, rulings, h);
}

}  // namespace

std::string_view BlockTypeName(BlockType type) {
  switch (type) {
    case BlockType::kParagraph:
      return "paragraph";
    case BlockType::kHeading:
      return "heading";
    case BlockType::kListItem:
      return "list_item";
    case BlockType::kTable:
      return "table";
  }
  return "paragraph";
}

std::vector<std::size_t> Block::Lines() const {
  std::vector<std::size_t> out;
  const auto append = [&out](const TextRows& text_rows) {
    for (const std::vector<std::size_t>& row : text_rows) {
      out.insert(out.end(), row.begin(), row.end());
    }
  };
  if (type == BlockType::kTable) {
    for (const TableCell& cell : table.cells) {
      append(cell.rows);
    }
  } else {
    append(rows);
  }
  return out;
}

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

std::size_t ListMarker(std::string_view text, int* number) {
  // Bullets printed before an item (•, ·, ▪, ●, ○, ■, □, ◆, ►, –), or typed ones, and a space.
  static constexpr std::array<std::string_view, 12> kBullets = {
      "\u2022", "\u00B7", "\u25AA", "\u25CF", "\u25CB", "\u25A0",
      "\u25A1", "\u25C6", "\u25BA", "\u2013", "-",      "*"};
  for (std::string_view bullet : kBullets) {
    if (text.size() > bullet.size() + 1 && text.starts_with(bullet) && text[bullet.size()] == ' ') {
      return bullet.size() + 1;
    }
  }
  // "1." or "12)" and a space: lists are numbered with one or two digits; "2016. " and "1.5" are
  // not list numbers.
  std::size_t digits = 0;
  while (digits < text.size() && digits < 3 && text[digits] >= '0' && text[digits] <= '9') {
    ++digits;
  }
  if (digits >= 1 && digits <= 2 && text.size() > digits + 2 &&
      (text[digits] == '.' || text[digits] == ')') && text[digits + 1] == ' ') {
    if (number != nullptr) {
      *number = digits == 1 ? text[0] - '0' : (text[0] - '0') * 10 + (text[1] - '0');
      *number = std::max(*number, 0);
    }
    return digits + 2;
  }
  return 0;
}

std::vector<Block> AnalyzeLayout(std::span<const TextLine> lines, const PageImage& page_image) {
  std::vector<std::string> texts(lines.size());
  std::vector<LineGeom> geoms;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    texts[i] = NormalizeText(lines[i].text);
    if (!texts[i].empty()) {
      // A line with no text is left out: an empty box must not split a paragraph, a column or a
      // table.
      geoms.push_back(MeasureLine(lines[i].box, i));
    }
  }
  if (geoms.empty()) {
    return {};
  }
  std::vector<float> heights;
  heights.reserve(geoms.size());
  for (const LineGeom& g : geoms) {
    heights.push_back(g.height);
  }
  const float h = Median(std::move(heights));
  const cv::Matx23d identity(1, 0, 0, 0, 1, 0);
  std::vector<Block> blocks;
  if (h < kMinHeightPx) {
    // No geometry to go on: keep the recognizer's lines, in order, rather than guess a layout.
    for (const LineGeom& g : geoms) {
      Block block;
      block.rows.push_back({g.index});
      SetExtent(block, lines, identity);
      blocks.push_back(std::move(block));
    }
    return blocks;
  }
  for (LineGeom& g : geoms) {
    g.height = std::max(g.height, kMinHeightPx);
  }

  // A skewed page is analysed turned about the origin by its slope, lines and image alike.
  const double slope = PageSlope(lines, geoms, h);
  const double c = std::cos(slope);
  const double s = std::sin(slope);
  const cv::Matx23d to_frame(c, s, 0, -s, c, 0);
  const cv::Matx23d to_page(c, -s, 0, s, c, 0);
  if (slope != 0.0) {
    for (LineGeom& g : geoms) {
      Quad q = lines[g.index].box;
      for (Point& p : q) {
        p = Apply(to_frame, p);
      }
      g = MeasureLine(q, g.index);
      g.height = std::max(g.height, kMinHeightPx);
    }
  }

  const std::vector<Table> tables =
      MayHoldTable(geoms, h) ? PageTables(geoms, texts, page_image, to_frame, slope != 0.0, h)
                             : std::vector<Table>();
  // Each table stands in the columns as one box, with an index past the lines'.
  std::vector<bool> in_table(lines.size(), false);
  for (const Table& t : tables) {
    for (std::size_t index : t.lines) {
      in_table[index] = true;
    }
  }
  std::vector<LineGeom> flow;
  for (const LineGeom& g : geoms) {
    if (!in_table[g.index]) {
      flow.push_back(g);
    }
  }
  for (std::size_t k = 0; k < tables.size(); ++k) {
    const Table& t = tables[k];
    flow.push_back(
        LineGeom{lines.size() + k, t.left, t.right, (t.top + t.bottom) / 2, t.bottom - t.top});
  }
  const PageText page{texts, tables, h};
  for (const Column& column : SplitColumns(std::move(flow), h, 0)) {
    AppendRows(BuildRows(column, page), page, blocks);
  }
  for (Block& block : blocks) {
    SetExtent(block, lines, slope != 0.0 ? to_page : identity);
  }
  return blocks;
}

LineGeom MeasureLine(const Quad& box, std::size_t index) {
  Quad q = box;
  for (Point& p : q) {
    p.x = SaneCoordinate(p.x);
    p.y = SaneCoordinate(p.y);
  }
  LineGeom g;
  g.index = index;
  g.left = std::min({q[0].x, q[1].x, q[2].x, q[3].x});
  g.right = std::max({q[0].x, q[1].x, q[2].x, q[3].x});
  g.center_y = (q[0].y + q[1].y + q[2].y + q[3].y) / 4;
  // Mean of the left (top-left to bottom-left) and right edges: the text height whatever the slant.
  g.height = (Distance(q[0], q[3]) + Distance(q[1], q[2])) / 2;
  return g;
}

std::vector<std::vector<LineGeom>> GroupRows(std::vector<LineGeom> lines) {
  std::sort(lines.begin(), lines.end(), [](const LineGeom& a, const LineGeom& b) {
    if (a.center_y != b.center_y) {
      return a.center_y < b.center_y;
    }
    return a.left != b.left ? a.left < b.left : a.index < b.index;
  });
  std::vector<std::vector<LineGeom>> rows;
  std::size_t begin = 0;
  while (begin < lines.size()) {
    // A row is anchored on its topmost box, so a slow drift of centres cannot chain rows together.
    const LineGeom& anchor = lines[begin];
    std::size_t end = begin + 1;
    while (end < lines.size() &&
           lines[end].center_y - anchor.center_y <
               kSameRowFraction * std::min(anchor.height, lines[end].height)) {
      ++end;
    }
    std::vector<LineGeom> row(lines.begin() + static_cast<std::ptrdiff_t>(begin),
                              lines.begin() + static_cast<std::ptrdiff_t>(end));
    std::sort(row.begin(), row.end(), [](const LineGeom& a, const LineGeom& b) {
      return a.left != b.left ? a.left < b.left : a.index < b.index;
    });
    rows.push_back(std::move(row));
    begin = end;
  }
  return rows;
}

}  // namespace ocr::document
