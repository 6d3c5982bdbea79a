#include "pipeline/rec/lexicon.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipeline/rec/ctc_decode.h"
#include "pipeline/rec/lexicon_correction.h"

namespace ocr::pipeline {
namespace {

using ::testing::UnorderedElementsAre;

TEST(LexiconTest, KeepsWordsOfLettersFoldedToLowercase) {
  const Lexicon lexicon("Special\nspatial\nNovember\ndon't\ncafé\n\nspecial\r\nx2\n");
  EXPECT_EQ(lexicon.size(), 3u);
  EXPECT_TRUE(lexicon.Contains("special"));
  EXPECT_TRUE(lexicon.Contains("november"));
  EXPECT_FALSE(lexicon.Contains("Special"));  // callers fold case
  EXPECT_FALSE(lexicon.Contains("don't"));
  EXPECT_FALSE(lexicon.Contains("spec"));  // a prefix is no word
  EXPECT_FALSE(lexicon.Contains(""));
}

TEST(LexiconTest, NearFindsTheWordsWithinTheEdits) {
  const Lexicon lexicon("special\nspatial\nspecials\nspeck\nbeing\nbring\nbeings\n");
  EXPECT_THAT(lexicon.Near("speclal", 1), UnorderedElementsAre("special"));
  EXPECT_THAT(lexicon.Near("spacial", 1), UnorderedElementsAre("special", "spatial"));
  // Both are one letter away: the columns choose between them (CorrectUnsureWords).
  EXPECT_THAT(lexicon.Near("bcing", 1), UnorderedElementsAre("being", "bring"));
  EXPECT_THAT(lexicon.Near("bcing", 2), UnorderedElementsAre("being", "bring", "beings"));
  EXPECT_THAT(lexicon.Near("specail", 1), UnorderedElementsAre());  // a swap is two edits
  EXPECT_THAT(lexicon.Near("special", 0), UnorderedElementsAre("special"));
}

TEST(LexiconTest, EnglishHoldsDebiansList) {
  const Lexicon& english = Lexicon::English();
  EXPECT_GT(english.size(), 50000u);
  for (const char* word : {"special", "november", "being", "recipient", "the", "invoice"})
    EXPECT_TRUE(english.Contains(word)) << word;
  EXPECT_FALSE(english.Contains("speclal"));
  EXPECT_THAT(english.Near("ncvember", 1), ::testing::Contains("november"));
}

// A charset of the blank, the ASCII letters, a digit, two punctuation marks and the space last,
// as a PaddleOCR dictionary orders them.
std::vector<std::string> Charset() {
  std::vector<std::string> charset = {""};
  for (char c = 'a'; c <= 'z'; ++c)
    charset.emplace_back(1, c);
  for (char c = 'A'; c <= 'Z'; ++c)
    charset.emplace_back(1, c);
  for (const char* other : {"7", "(", ",", "."})
    charset.emplace_back(other);
  charset.emplace_back(" ");
  return charset;
}

// CTC columns: each column's classes by their text ("" the blank), the rest of the probability
// on the blank.
std::vector<float> Columns(const std::vector<std::string>& charset,
                           const std::vector<std::map<std::string, float>>& columns) {
  std::vector<float> probs;
  for (const auto& column : columns) {
    std::vector<float> row(charset.size(), 0.0f);
    float rest = 1;
    for (const auto& [text, p] : column) {
      const auto k = std::find(charset.begin(), charset.end(), text) - charset.begin();
      row[static_cast<std::size_t>(k)] += p;
      rest -= p;
    }
    row[0] += rest;
    probs.insert(probs.end(), row.begin(), row.end());
  }
  return probs;
}

// "SPECLAL" as a recognizer reads a faint "SPECIAL": each letter in a column of its own with a
// blank after it, the fifth letter's column saying L with `l` and I with `i`.
std::vector<std::map<std::string, float>> Speclal(float l, float i) {
  std::vector<std::map<std::string, float>> columns;
  for (const char* letter : {"S", "P", "E", "C", "*", "A", "L"}) {
    if (std::string(letter) == "*")
      columns.push_back({{"L", l}, {"I", i}});
    else
      columns.push_back({{letter, 0.97f}});
    columns.push_back({});
  }
  return columns;
}

TEST(CtcLogProbabilityTest, SumsEveryAlignment) {
  const std::vector<std::string> charset = {"", "a", "b"};
  // p(blank, a, b) per column.
  const std::vector<float> probs = {0.2f, 0.7f, 0.1f, 0.5f, 0.3f, 0.2f, 0.6f, 0.1f, 0.3f};
  const auto p = [&](int t, int c) { return static_cast<double>(probs[t * 3 + c]); };
  // "a" over columns 0-1: a a, a _, _ a.
  EXPECT_NEAR(std::exp(CtcLogProbability(probs, 3, 0, 2, std::vector<int>{1})),
              p(0, 1) * p(1, 1) + p(0, 1) * p(1, 0) + p(0, 0) * p(1, 1), 1e-9);
  // "ab" over columns 0-2: a b b, a a b, a _ b, _ a b, a b _.
  EXPECT_NEAR(std::exp(CtcLogProbability(probs, 3, 0, 3, std::vector<int>{1, 2})),
              p(0, 1) * p(1, 2) * p(2, 2) + p(0, 1) * p(1, 1) * p(2, 2) +
                  p(0, 1) * p(1, 0) * p(2, 2) + p(0, 0) * p(1, 1) * p(2, 2) +
                  p(0, 1) * p(1, 2) * p(2, 0),
              1e-9);
  // "aa" needs a blank between: three columns at least.
  EXPECT_EQ(CtcLogProbability(probs, 3, 0, 2, std::vector<int>{1, 1}),
            -std::numeric_limits<double>::infinity());
  EXPECT_NEAR(std::exp(CtcLogProbability(probs, 3, 0, 3, std::vector<int>{1, 1})),
              p(0, 1) * p(1, 0) * p(2, 1), 1e-9);
}

class LexiconCorrectionTest : public ::testing::Test {
 protected:
  DecodedText Read(const std::vector<std::map<std::string, float>>& columns, const Lexicon& lexicon,
                   LexiconRule rule = {}) {
    const std::vector<float> probs = Columns(charset_, columns);
    const int steps = static_cast<int>(columns.size());
    const int classes = static_cast<int>(charset_.size());
    DecodedText d = CtcGreedyDecode(probs, steps, classes, charset_);
    CorrectUnsureWords(d, probs, steps, classes, LatinClassesOf(charset_), lexicon, rule);
    return d;
  }

  const std::vector<std::string> charset_ = Charset();
  const Lexicon lexicon_{"special\nspatial\nnovember\n"};
};

TEST_F(LexiconCorrectionTest, AnUnsureLetterTheColumnsNearlySayBecomesTheWord) {
  const DecodedText d = Read(Speclal(0.55f, 0.40f), lexicon_);
  EXPECT_EQ(d.text, "SPECIAL");
  // The characters follow the new text: their columns, offsets and confidences.
  EXPECT_EQ(d.columns, (std::vector<int>{0, 2, 4, 6, 8, 10, 12}));
  EXPECT_EQ(d.char_offsets, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
  ASSERT_EQ(d.char_confidences.size(), 7u);
  EXPECT_FLOAT_EQ(d.char_confidences[4], 0.40f);
  EXPECT_NEAR(d.confidence, (6 * 0.97 + 0.55) / 7, 1e-6);  // the best path's, as read
  EXPECT_EQ(d.blanks_before, (std::vector<int>{0, 1, 1, 1, 1, 1, 1}));
}

TEST_F(LexiconCorrectionTest, TheReadingStaysWhenTheColumnsDoNotSayTheWord) {
  // I at 0.001 against L's 0.55: 6.3 nats less probable, more than the margin of 5; at 0.01 (4
  // nats) it is within it.
  EXPECT_EQ(Read(Speclal(0.55f, 0.001f), lexicon_).text, "SPECLAL");
  EXPECT_EQ(Read(Speclal(0.55f, 0.01f), lexicon_).text, "SPECIAL");
  // A sure reading is not questioned, even where the word is not in the lexicon.
  EXPECT_EQ(Read(Speclal(0.95f, 0.04f), lexicon_).text, "SPECLAL");
  // Without the word in the lexicon, nothing to correct to.
  EXPECT_EQ(Read(Speclal(0.55f, 0.40f), Lexicon("spatial\n")).text, "SPECLAL");
}

TEST_F(LexiconCorrectionTest, CodesAndShortWordsAreNeverTouched) {
  // "SPECLAL7": a letter-digit code.
  auto code = Speclal(0.55f, 0.40f);
  code.push_back({{"7", 0.97f}});
  EXPECT_EQ(Read(code, lexicon_).text, "SPECLAL7");
  // Two letters: one edit from too many words to choose among.
  const std::vector<std::map<std::string, float>> ls = {
      {{"L", 0.5f}, {"I", 0.45f}}, {}, {{"S", 0.97f}}, {}};
  EXPECT_EQ(Read(ls, Lexicon("is\n")).text, "LS");
}

// Columns that spell `word` a letter each, with a blank after each, every letter at 0.97 but the
// one at `unsure`, which reads `as` at `p` beside `runner_up` ("" the blank) at `q`.
std::vector<std::map<std::string, float>> Spelling(const std::string& word, std::size_t unsure,
                                                   const std::string& as, float p,
                                                   const std::string& runner_up, float q) {
  std::vector<std::map<std::string, float>> columns;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (i == unsure)
      columns.push_back(runner_up.empty() ? std::map<std::string, float>{{as, p}}
                                          : std::map<std::string, float>{{as, p}, {runner_up, q}});
    else
      columns.push_back({{std::string(1, word[i]), 0.97f}});
    columns.push_back({});
  }
  return columns;
}

TEST_F(LexiconCorrectionTest, AcronymsAndCodesKeepTheirLetters) {
  const Lexicon lexicon("pct\nspa\ndata\n");
  // "PCI" read unsure, T the runner-up: three capitals are an acronym, not the word "pct".
  EXPECT_EQ(Read(Spelling("PCI", 2, "I", 0.6f, "T", 0.35f), lexicon).text, "PCI");
  // A capital inside a word: "DsA" is a code, not "data" or "spa".
  EXPECT_EQ(Read(Spelling("DsA", 1, "s", 0.6f, "a", 0.35f), lexicon).text, "DsA");
  // In lowercase, the same letters are a word wrong by one.
  EXPECT_EQ(Read(Spelling("pci", 2, "i", 0.6f, "t", 0.35f), lexicon).text, "pct");
}

TEST_F(LexiconCorrectionTest, AnIOrLInsideALowercaseWordIsAMisreadStem) {
  const Lexicon lexicon("questions\nstudy\nkenneth\nstud\n");
  // A t whose bar was lost reads as L: the word is a word, and the columns nearly say t.
  EXPECT_EQ(Read(Spelling("quesLions", 4, "L", 0.6f, "t", 0.3f), lexicon).text, "questions");
  EXPECT_EQ(Read(Spelling("sLudy", 1, "L", 0.6f, "t", 0.3f), lexicon).text, "study");
  EXPECT_EQ(Read(Spelling("KenneLh", 5, "L", 0.6f, "t", 0.3f), lexicon).text, "Kenneth");
  // Other capitals inside, or fewer than five letters: still codes and acronyms.
  EXPECT_EQ(Read(Spelling("sQudy", 1, "Q", 0.6f, "t", 0.3f), lexicon).text, "sQudy");
  EXPECT_EQ(Read(Spelling("sLud", 1, "L", 0.6f, "t", 0.3f), lexicon).text, "sLud");
  // Without the t among the stem's runners-up, the columns do not say the word.
  EXPECT_EQ(Read(Spelling("quesLions", 4, "L", 0.6f, "", 0.0f), lexicon).text, "quesLions");
}

TEST_F(LexiconCorrectionTest, AShorterWordMustBeAtLeastAsProbableAsTheReading) {
  const Lexicon lexicon("gi\ngit\nprofile\n");
  // "profiler" with its r at 0.6 and the blank at 0.4: dropping the r is less probable than
  // reading it, so it stays (the margin of 5 nats would have allowed it).
  EXPECT_EQ(Read(Spelling("profiler", 7, "r", 0.6f, "", 0.0f), lexicon).text, "profiler");
  // A smear after the e read as an x at 0.35, with the e at 0.32 and the blank at 0.33: the e's
  // run or a blank (0.65) says "profile" more than the x says "profilex".
  auto smear = Spelling("profile", 99, "", 0, "", 0);
  smear.insert(smear.end() - 1, {{"x", 0.35f}, {"e", 0.32f}});  // right after the e's column
  EXPECT_EQ(Read(smear, lexicon).text, "profile");
}

TEST_F(LexiconCorrectionTest, OnlyTheUnsureWordOfALineChangesAndPunctuationStays) {
  // "(SPECLAL, November": a written space after the comma.
  std::vector<std::map<std::string, float>> columns = {{{"(", 0.97f}}, {}};
  const auto speclal = Speclal(0.55f, 0.40f);
  columns.insert(columns.end(), speclal.begin(), speclal.end());
  columns.push_back({{",", 0.97f}});
  columns.push_back({{" ", 0.9f}});
  columns.push_back({});
  for (const char* letter : {"N", "o", "v", "e", "m", "b", "e", "r"}) {
    columns.push_back({{letter, 0.6f}});  // unsure, but a word
    columns.push_back({});
  }
  const DecodedText d = Read(columns, lexicon_);
  EXPECT_EQ(d.text, "(SPECIAL, November");
  EXPECT_EQ(d.char_offsets.size(), d.text.size());
  EXPECT_EQ(d.columns.back(), static_cast<int>(columns.size()) - 2);
}

// Columns for `before`, a mark read at `mark_p` with the space class at `space_in` in its own
// column, then a blank column with the space class at `space_after`, then `after`: each letter
// at 0.97 in a column of its own with a blank after it.
std::vector<std::map<std::string, float>> MarkBetween(const std::string& before,
                                                      const std::string& mark, float mark_p,
                                                      float space_in, float space_after,
                                                      const std::string& after) {
  std::vector<std::map<std::string, float>> columns;
  const auto letters = [&](const std::string& word) {
    for (const char c : word) {
      columns.push_back({{std::string(1, c), 0.97f}});
      columns.push_back({});
    }
  };
  letters(before);
  columns.back() = {};
  columns.push_back({{mark, mark_p}, {" ", space_in}});
  columns.push_back({{" ", space_after}});
  letters(after);
  return columns;
}

TEST(StrayMarkTest, APeriodWhoseColumnsHoldTheWordGapBecomesASpace) {
  const std::vector<std::string> charset = Charset();
  const Lexicon lexicon("cost\nof\nnode\n");
  const auto read = [&](const std::vector<std::map<std::string, float>>& columns) {
    const std::vector<float> probs = Columns(charset, columns);
    const int steps = static_cast<int>(columns.size());
    const int classes = static_cast<int>(charset.size());
    DecodedText d = CtcGreedyDecode(probs, steps, classes, charset);
    ReadStrayMarksAsSpaces(d, probs, steps, classes, LatinClassesOf(charset), lexicon);
    return d;
  };
  // A speck in the gap of "cost of": the space class rises in the period's own column only.
  const DecodedText speck = read(MarkBetween("cost", ".", 0.6f, 0.3f, 0.0f, "of"));
  EXPECT_EQ(speck.text, "cost of");
  ASSERT_EQ(speck.char_confidences.size(), 7u);
  EXPECT_FLOAT_EQ(speck.char_confidences[4], 0.3f);
  // A comma whose space was lost holds the gap in its columns as well ("Further,in"), and a
  // capital after the period goes on a sentence ("imputed.Further"): both stay.
  EXPECT_EQ(read(MarkBetween("cost", ",", 0.6f, 0.3f, 0.0f, "of")).text, "cost,of");
  EXPECT_EQ(read(MarkBetween("cost", ".", 0.6f, 0.3f, 0.0f, "Of")).text, "cost.Of");
  // Its space after it: a period that ends a sentence stays (word_spaces.h writes the space).
  EXPECT_EQ(read(MarkBetween("cost", ".", 0.6f, 0.3f, 0.3f, "of")).text, "cost.of");
  // No space in its column: an abbreviation's or a name's period ("Node.js").
  EXPECT_EQ(read(MarkBetween("node", ".", 0.9f, 0.01f, 0.0f, "js")).text, "node.js");
  // Not after an English word of two letters or more: an initial, or no word.
  EXPECT_EQ(read(MarkBetween("J", ".", 0.6f, 0.3f, 0.0f, "of")).text, "J.of");
  EXPECT_EQ(read(MarkBetween("Nede", ",", 0.6f, 0.3f, 0.0f, "js")).text, "Nede,js");
  // Between a letter and a digit: a number's separator, not a gap.
  EXPECT_EQ(read(MarkBetween("cost", ".", 0.6f, 0.3f, 0.0f, "7")).text, "cost.7");
}

}  // namespace
}  // namespace ocr::pipeline
