#include "pipeline/rec/word_spaces.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pipeline/word_boxes.h"

namespace ocr::pipeline {
namespace {

const std::vector<std::string> kWordCharset = {"", "a", "b", "中", "（", " ", "&", "1", ".", "_"};
constexpr int kSpace = 5;

// One recognizer column: `best` at 0.9 unless it is the blank and `space` is given, in which case
// the space class takes `space` and the blank the rest.
struct Column {
  int best;
  float space = 0;
};

DecodedText Decode(const std::vector<Column>& columns) {
  std::vector<float> probs;
  const int classes = static_cast<int>(kWordCharset.size());
  for (const Column& c : columns) {
    std::vector<float> row(static_cast<size_t>(classes), 0.0f);
    if (c.best == 0) {
      row[kSpace] = c.space;
      row[0] = 1.0f - c.space;
    } else {
      row[static_cast<size_t>(c.best)] = 0.9f;
      row[0] = 0.1f;
    }
    probs.insert(probs.end(), row.begin(), row.end());
  }
  DecodedText d = CtcGreedyDecode(probs, static_cast<int>(columns.size()), classes, kWordCharset);
  d.column_width = 8;
  return d;
}

DecodedText Spaced(const std::vector<Column>& columns) {
  DecodedText d = Decode(columns);
  InsertWordSpaces(d);
  return d;
}

TEST(WordSpacesTest, DecodeRecordsTheSpaceEvidenceAndBlanksOfEachGap) {
  const DecodedText d = Decode({{1}, {0, 0.01f}, {0, 0.3f}, {0, 0.02f}, {2}, {2}, {0}, {1}});
  EXPECT_EQ(d.text, "aba");
  EXPECT_EQ(d.space_before, (std::vector<float>{0.0f, 0.3f, 0.0f}));
  EXPECT_EQ(d.blanks_before, (std::vector<int>{0, 3, 1}));
}

TEST(WordSpacesTest, AWideGapWithSpaceEvidenceBetweenLatinLettersIsAWordSpace) {
  // a_b (letter gap) ___ a_b: "ab ab".
  const DecodedText d = Spaced({{1}, {0}, {2}, {0}, {0, 0.2f}, {0}, {1}, {0}, {2}});
  EXPECT_EQ(d.text, "ab ab");
  EXPECT_EQ(d.char_offsets, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(d.columns.size(), 5u);
  EXPECT_FLOAT_EQ(d.confidence, 0.9f);  // a written space does not change the line's confidence
  const std::vector<WordSpan> words = SplitWords(d, 100);
  ASSERT_EQ(words.size(), 2u);
  EXPECT_EQ(words[0].text, "ab");
  EXPECT_EQ(words[1].text, "ab");
  EXPECT_LT(words[0].x1, words[1].x0 + 16);  // each word keeps its own columns
}

TEST(WordSpacesTest, WeakEvidenceWritesNoSpace) {
  EXPECT_EQ(Spaced({{1}, {0}, {2}, {0}, {0, 0.03f}, {0}, {1}, {0}, {2}}).text, "abab");
}

TEST(WordSpacesTest, AGapAsWideAsTheLettersGapsIsASpaceWhereTheEvidenceIsThere) {
  // Small print: "ab ab ab" with every gap one column wide, the word gaps holding the evidence.
  EXPECT_EQ(Spaced({{1}, {0}, {2}, {0, 0.2f}, {1}, {0}, {2}, {0, 0.2f}, {1}, {0}, {2}}).text,
            "ab ab ab");
  // A gap narrower than the line's usual one is not a word gap, whatever the evidence.
  EXPECT_EQ(
      Spaced(
          {{1}, {0}, {0}, {2}, {0, 0.2f}, {1}, {0}, {0}, {2}, {0}, {0, 0.2f}, {1}, {0}, {0}, {2}})
          .text,
      "abab ab");
}

TEST(WordSpacesTest, LetterSpacedTextIsNotCutIntoLetters) {
  // Every gap is as wide as the others and holds some space evidence: no gap stands out.
  EXPECT_EQ(
      Spaced({{1}, {0}, {0, 0.2f}, {0}, {2}, {0}, {0, 0.2f}, {0}, {1}, {0}, {0, 0.2f}, {0}, {2}})
          .text,
      "abab");
  // There a wider gap still parts two words.
  EXPECT_EQ(Spaced({{1}, {0, 0.2f}, {2}, {0, 0.2f}, {0}, {1}, {0, 0.2f}, {2}}).text, "ab ab");
}

TEST(WordSpacesTest, AnUnderscoreJoinsItsNeighbours) {
  // Evidence beside an underscore and after a full stop: a space only after the full stop.
  EXPECT_EQ(Spaced({{1}, {0}, {2}, {0, 0.3f}, {9}, {0, 0.3f}, {1}, {0}, {2}}).text, "ab_ab");
  EXPECT_EQ(Spaced({{7}, {0}, {8}, {0, 0.3f}, {1}, {0}, {2}, {0}, {1}}).text, "1. aba");
}

TEST(WordSpacesTest, NeverBetweenHanCharactersOrBesideFullWidthPunctuation) {
  EXPECT_EQ(Spaced({{3}, {0}, {0, 0.4f}, {0}, {3}}).text, "中中");
  EXPECT_EQ(Spaced({{1}, {0}, {0, 0.4f}, {0}, {4}}).text, "a（");
}

TEST(WordSpacesTest, AChangeOfScriptNeedsLessEvidence) {
  EXPECT_EQ(Spaced({{3}, {0}, {0, 0.02f}, {0}, {1}}).text, "中 a");
  EXPECT_EQ(Spaced({{1}, {0}, {0, 0.006f}, {0}, {3}}).text, "a 中");
  EXPECT_EQ(Spaced({{1}, {0}, {0, 0.004f}, {0}, {3}}).text, "a中");
  // The line's letter gap does not hold back a change of script: the gap before 中 is as narrow
  // as the one inside "ab".
  EXPECT_EQ(Spaced({{1}, {0}, {0}, {2}, {0}, {0, 0.02f}, {3}}).text, "ab 中");
}

TEST(WordSpacesTest, AsciiPunctuationBesideCjkStaysTight) {
  // "名称&编号": CJK text sets ASCII marks without spaces, whatever the space class says.
  EXPECT_EQ(Spaced({{3}, {0}, {0, 0.3f}, {0}, {6}, {0}, {0, 0.3f}, {0}, {3}}).text, "中&中");
}

TEST(WordSpacesTest, DoubledAndOuterSpacesAreRemoved) {
  const DecodedText d = Spaced({{5}, {1}, {5}, {0}, {5}, {2}, {5}});
  EXPECT_EQ(d.text, "a b");
  EXPECT_EQ(d.char_offsets, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(d.columns, (std::vector<int>{1, 2, 5}));
  EXPECT_EQ(d.space_before.size(), 3u);
  EXPECT_EQ(d.blanks_before.size(), 3u);
  EXPECT_EQ(Spaced({{5}, {0}, {5}}).text, "");
}

TEST(WordSpacesTest, TextNotFromTheDecoderIsLeftAsItIs) {
  DecodedText d;
  d.text = "ab";
  d.char_offsets = {0, 1};
  InsertWordSpaces(d);
  EXPECT_EQ(d.text, "ab");
}

}  // namespace
}  // namespace ocr::pipeline
