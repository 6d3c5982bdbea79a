#include "pipeline/cls/text_classifier.h"

#include <cstdint>
#include <numeric>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

namespace ocr::pipeline {
namespace {

using Flags = std::vector<std::uint8_t>;

// The page vote over every line of `flipped`.
std::optional<std::uint8_t> Voted(const Flags& flipped) {
  std::vector<size_t> lines(flipped.size());
  std::iota(lines.begin(), lines.end(), size_t{0});
  return PageDirection(flipped, lines, kPageVoteShare, kPageVoteMinLines);
}

TEST(PageDirectionTest, AClearMajorityDecides) {
  // An upright page with one line misjudged, and an upside-down page with one line missed.
  EXPECT_EQ(Voted({0, 0, 1, 0}), 0);
  EXPECT_EQ(Voted({1, 1, 0, 1}), 1);
  EXPECT_EQ(Voted({1, 1, 1, 0, 1, 1, 1, 0}), 1);  // exactly 3/4
}

TEST(PageDirectionTest, APageWithoutAClearMajorityHasNone) {
  EXPECT_EQ(Voted({1, 0, 1, 0}), std::nullopt);
  EXPECT_EQ(Voted({1, 1, 0}), std::nullopt);  // 2/3 is not enough
}

TEST(PageDirectionTest, TooFewLinesToVote) {
  EXPECT_EQ(Voted({1, 0}), std::nullopt);
  EXPECT_EQ(Voted({1}), std::nullopt);
  EXPECT_EQ(Voted({}), std::nullopt);
}

TEST(PageDirectionTest, OnlyTheGivenLinesVote) {
  // Lines 0-3 upside down, 4-5 upright: the first four alone are unanimous.
  const Flags flipped = {1, 1, 1, 1, 0, 0};
  const std::vector<size_t> first = {0, 1, 2, 3};
  EXPECT_EQ(PageDirection(flipped, first, kPageVoteShare, kPageVoteMinLines), 1);
  const std::vector<size_t> all = {0, 1, 2, 3, 4, 5};
  EXPECT_EQ(PageDirection(flipped, all, kPageVoteShare, kPageVoteMinLines), std::nullopt);
}

TEST(PageDirectionTest, TheSampleDecidesOnlyWhenElevenOfTwelveAgree) {
  Flags sample(kVoteSample, 0);
  std::vector<size_t> lines(kVoteSample);
  std::iota(lines.begin(), lines.end(), size_t{0});
  sample[3] = 1;  // 11 of 12 upright
  EXPECT_EQ(PageDirection(sample, lines, kSampleShare, kVoteSample), 0);
  sample[7] = 1;  // 10 of 12: every line is classified instead
  EXPECT_EQ(PageDirection(sample, lines, kSampleShare, kVoteSample), std::nullopt);
  // Fewer lines than the sample never decide by it.
  lines.pop_back();
  EXPECT_EQ(PageDirection(Flags(kVoteSample, 0), lines, kSampleShare, kVoteSample), std::nullopt);
}

}  // namespace
}  // namespace ocr::pipeline
