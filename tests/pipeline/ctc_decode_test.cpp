#include "pipeline/rec/ctc_decode.h"

#include <gtest/gtest.h>

namespace ocr::pipeline {
namespace {

const std::vector<std::string> kCharset = {"", "a", "b", "中", " "};

// One row per step with `best` at probability p and the rest shared evenly.
std::vector<float> Steps(const std::vector<std::pair<int, float>>& steps) {
  std::vector<float> probs;
  for (auto [best, p] : steps) {
    for (int c = 0; c < static_cast<int>(kCharset.size()); ++c) {
      probs.push_back(c == best ? p : (1.0f - p) / static_cast<float>(kCharset.size() - 1));
    }
  }
  return probs;
}

TEST(CtcDecodeTest, CollapsesRepeatsAndDropsBlanks) {
  // a a _ a b " " 中 中
  const auto probs = Steps(
      {{1, 0.9f}, {1, 0.8f}, {0, 0.9f}, {1, 0.7f}, {2, 0.6f}, {4, 0.5f}, {3, 0.9f}, {3, 0.3f}});
  const DecodedText d = CtcGreedyDecode(probs, 8, 5, kCharset);
  EXPECT_EQ(d.text, "aab 中");
  EXPECT_NEAR(d.confidence, (0.9 + 0.7 + 0.6 + 0.5 + 0.9) / 5, 1e-6);
  EXPECT_EQ(d.columns, (std::vector<int>{0, 3, 4, 5, 6}));
}

TEST(CtcDecodeTest, AllBlankGivesEmptyTextAndZeroConfidence) {
  const auto probs = Steps({{0, 0.99f}, {0, 0.99f}, {0, 0.99f}});
  const DecodedText d = CtcGreedyDecode(probs, 3, 5, kCharset);
  EXPECT_EQ(d.text, "");
  EXPECT_EQ(d.confidence, 0.0f);
  EXPECT_TRUE(d.columns.empty());
}

TEST(CtcDecodeTest, TiesGoToTheFirstClass) {
  std::vector<float> probs = {0.1f, 0.4f, 0.4f, 0.05f, 0.05f};
  const DecodedText d = CtcGreedyDecode(probs, 1, 5, kCharset);
  EXPECT_EQ(d.text, "a");
}

TEST(CtcDecodeTest, SpaceClassIsText) {
  const auto probs = Steps({{1, 0.9f}, {4, 0.9f}, {2, 0.9f}});
  EXPECT_EQ(CtcGreedyDecode(probs, 3, 5, kCharset).text, "a b");
}

TEST(CtcDecodeTest, BlankSeparatesRealRepeats) {
  const auto probs = Steps({{2, 0.9f}, {0, 0.9f}, {2, 0.9f}});
  EXPECT_EQ(CtcGreedyDecode(probs, 3, 5, kCharset).text, "bb");
}

}  // namespace
}  // namespace ocr::pipeline
