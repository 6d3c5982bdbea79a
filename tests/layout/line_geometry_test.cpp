// Rows found again from boxes (RowsInReadingOrder): how POST /render gets back the rows of a block
// that an answer lists only as lines.
#include "layout/line_geometry.h"

#include <vector>

#include <gtest/gtest.h>

#include "support/hand_lines.h"

namespace ocr::layout {
namespace {

using testing::Line;

TEST(RowsInReadingOrderTest, ALineBackAtTheLeftOrBelowStartsARow) {
  const std::vector<pipeline::TextLine> lines = {
      Line("a", 10, 10, 100, 30), Line("b", 120, 10, 200, 30),  // one row
      Line("c", 10, 35, 100, 55),                               // below: the next
      Line("d", 12, 60, 100, 80),  // a little right of c, but a row lower
  };
  const std::vector<std::size_t> order = {0, 1, 2, 3};
  EXPECT_EQ(RowsInReadingOrder(lines, order), (TextRows{{0, 1}, {2}, {3}}));
  // The order given is kept: the rows are not sorted again.
  const std::vector<std::size_t> reversed = {2, 0, 1};
  EXPECT_EQ(RowsInReadingOrder(lines, reversed), (TextRows{{2}, {0, 1}}));
}

TEST(RowsInReadingOrderTest, ARowOfASkewedPageDriftsAlongItsLength) {
  // Four lines of one row climbing 5 px each (a photo taken askew), 25 px high: the last is 15 px
  // above the first, more than half a line, yet each is close to the one before.
  std::vector<pipeline::TextLine> lines;
  for (int i = 0; i < 4; ++i) {
    const float y = 100.0F - 5.0F * static_cast<float>(i);
    lines.push_back(Line("w", 10.0F + 100.0F * static_cast<float>(i), y,
                         90.0F + 100.0F * static_cast<float>(i), y + 25));
  }
  lines.push_back(Line("next", 10, 130, 90, 155));
  const std::vector<std::size_t> order = {0, 1, 2, 3, 4};
  EXPECT_EQ(RowsInReadingOrder(lines, order), (TextRows{{0, 1, 2, 3}, {4}}));
}

}  // namespace
}  // namespace ocr::layout
