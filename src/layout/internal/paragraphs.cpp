// Paragraphs, headings and list items within one column: its lines grouped into rows (a table's
// stand-in a row of its own), and the rules that start a new block between two rows.
#include "layout/internal/paragraphs.h"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace ocr::layout::internal {
namespace {

// --- Thresholds, in units of the page's median line height (h).

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

// A list item's second line is indented past the item's edge by at least this much (the marker
// and its space are about 1 em); jitter of a few pixels is not an indent.
constexpr float kHangingIndent = 0.5F;

// Consecutive rows whose heights differ by at least this factor are different kinds of text (body
// and footnote, caption or heading) and never share a paragraph.
constexpr float kHeightChange = 1.4F;

// One row of a column: its lines left to right, or a table standing in the column.
struct Row {
  std::vector<std::size_t> lines;
  const Table* table = nullptr;
  float left = 0;
  float top = 0;
  float bottom = 0;
  float height = 0;
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

}  // namespace

void AppendColumnBlocks(const Column& column, const PageText& page, std::vector<Block>& blocks) {
  AppendRows(BuildRows(column, page), page, blocks);
}

}  // namespace ocr::layout::internal
