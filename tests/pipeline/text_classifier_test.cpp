#include "pipeline/cls/text_classifier.h"

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace ocr::pipeline {
namespace {

using Flags = std::vector<std::uint8_t>;

Flags Voted(Flags flipped) {
  FollowPageDirection(flipped);
  return flipped;
}

TEST(FollowPageDirectionTest, ALineAgainstAClearMajorityFollowsThePage) {
  // An upright page with one line misjudged, and an upside-down page with one line missed.
  EXPECT_EQ(Voted({0, 0, 1, 0}), (Flags{0, 0, 0, 0}));
  EXPECT_EQ(Voted({1, 1, 0, 1}), (Flags{1, 1, 1, 1}));
  EXPECT_EQ(Voted({1, 1, 1, 0, 1, 1, 1, 0}), Flags(8, 1));  // exactly 3/4
}

TEST(FollowPageDirectionTest, APageWithoutAClearMajorityKeepsEachLinesOwn) {
  EXPECT_EQ(Voted({1, 0, 1, 0}), (Flags{1, 0, 1, 0}));
  EXPECT_EQ(Voted({1, 1, 0}), (Flags{1, 1, 0}));  // 2/3 is not enough
}

TEST(FollowPageDirectionTest, TooFewLinesToVote) {
  EXPECT_EQ(Voted({1, 0}), (Flags{1, 0}));
  EXPECT_EQ(Voted({1}), (Flags{1}));
  EXPECT_EQ(Voted({}), Flags{});
}

}  // namespace
}  // namespace ocr::pipeline
