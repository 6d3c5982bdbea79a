#include "pipeline/vertical_chains.h"

#include <vector>

#include <gtest/gtest.h>

#include "support/hand_lines.h"

namespace ocr::pipeline {
namespace {

using testing::Box;

// The pieces the detector made of "91346 1580" printed up the right margin of a 100-dpi fax
// (tests/forms, fax_01), among the page's horizontal lines.
const std::vector<Quad> kMarginNumber = {
    Box(20, 100, 300, 114),  // a horizontal line
    Box(768, 695, 780, 713), Box(768, 710, 780, 730), Box(768, 738, 780, 769),
    Box(768, 766, 780, 785), Box(20, 700, 400, 714),  // another, beside the number
};

TEST(VerticalChainsTest, PiecesOfATurnedLineMakeOneChain) {
  const std::vector<VerticalChain> chains = VerticalChains(kMarginNumber);
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_EQ(chains[0].members, (std::vector<size_t>{1, 2, 3, 4}));
  EXPECT_FLOAT_EQ(chains[0].box[0].x, 768);
  EXPECT_FLOAT_EQ(chains[0].box[0].y, 695);
  EXPECT_FLOAT_EQ(chains[0].box[2].x, 780);
  EXPECT_FLOAT_EQ(chains[0].box[2].y, 785);
}

TEST(VerticalChainsTest, HorizontalLinesAndShortStacksAreNotChains) {
  // List numbers down a margin: boxes about as wide as high, a line apart.
  const std::vector<Quad> list = {Box(20, 100, 34, 114), Box(20, 120, 34, 134),
                                  Box(20, 140, 34, 154), Box(20, 160, 34, 174)};
  EXPECT_TRUE(VerticalChains(list).empty());
  // Two tall letters of two lines, one over the other: not a line.
  const std::vector<Quad> two = {Box(50, 10, 58, 24), Box(50, 27, 58, 41)};
  EXPECT_TRUE(VerticalChains(two).empty());
  // A table's column of single digits, rows 43 px apart (a synthetic page read upside down).
  const std::vector<Quad> digits = {Box(478, 323, 494, 350), Box(477, 365, 495, 394),
                                    Box(478, 409, 493, 435)};
  EXPECT_TRUE(VerticalChains(digits).empty());
  // Tall pieces too far apart (a gap of twice their width), or side by side.
  const std::vector<Quad> apart = {Box(50, 10, 60, 40), Box(50, 60, 60, 90)};
  EXPECT_TRUE(VerticalChains(apart).empty());
  const std::vector<Quad> offset = {Box(50, 10, 60, 40), Box(58, 42, 68, 72)};
  EXPECT_TRUE(VerticalChains(offset).empty());
}

}  // namespace
}  // namespace ocr::pipeline
