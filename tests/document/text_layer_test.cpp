#include "document/text_layer.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ocr::document {
namespace {

pdf::Word Word(std::string text, double x0, double y0, double x1, double y1, int rotation = 0,
               bool space_after = true) {
  return {std::move(text), x0, y0, x1, y1, rotation, space_after};
}

std::vector<std::string> Texts(const std::vector<pipeline::TextLine>& lines) {
  std::vector<std::string> out;
  for (const pipeline::TextLine& l : lines)
    out.push_back(l.text);
  return out;
}

void ExpectPoint(const pipeline::Point& p, float x, float y) {
  EXPECT_FLOAT_EQ(p.x, x);
  EXPECT_FLOAT_EQ(p.y, y);
}

TEST(GroupIntoLinesTest, JoinsWordsOfARowAndSplitsRows) {
  const std::vector<pdf::Word> words = {
      Word("Hello", 10, 10, 60, 30), Word("world", 70, 11, 120, 31, 0, false),
      Word("Next", 10, 40, 50, 60), Word("row", 60, 40, 90, 60, 0, false)};
  const std::vector<pipeline::TextLine> lines = GroupIntoLines(words);
  ASSERT_EQ(Texts(lines), (std::vector<std::string>{"Hello world", "Next row"}));
  ExpectPoint(lines[0].box[0], 10, 10);
  ExpectPoint(lines[0].box[1], 120, 10);
  ExpectPoint(lines[0].box[2], 120, 31);
  ExpectPoint(lines[0].box[3], 10, 31);
  EXPECT_EQ(lines[0].confidence, 1.0F);
}

std::vector<std::string> WordTexts(const pipeline::TextLine& line) {
  std::vector<std::string> out;
  for (const pipeline::Word& w : line.words)
    out.push_back(w.text);
  return out;
}

TEST(GroupIntoLinesTest, LinesKeepTheirWordsWithBoxes) {
  const std::vector<pdf::Word> words = {
      Word("Hello", 10, 10, 60, 30), Word("world", 70, 11, 120, 31, 0, false),
      Word("Next", 10, 40, 50, 60), Word("row", 60, 40, 90, 60, 0, false)};
  const std::vector<pipeline::TextLine> lines = GroupIntoLines(words);
  ASSERT_EQ(lines.size(), 2U);
  ASSERT_EQ(WordTexts(lines[0]), (std::vector<std::string>{"Hello", "world"}));
  ASSERT_EQ(WordTexts(lines[1]), (std::vector<std::string>{"Next", "row"}));
  const pipeline::Word& world = lines[0].words[1];
  EXPECT_EQ(world.confidence, 1.0F);
  ExpectPoint(world.box[0], 70, 11);
  ExpectPoint(world.box[1], 120, 11);
  ExpectPoint(world.box[2], 120, 31);
  ExpectPoint(world.box[3], 70, 31);
  ExpectPoint(lines[0].words[0].box[0], 10, 10);
  ExpectPoint(lines[0].words[0].box[2], 60, 30);
}

TEST(GroupIntoLinesTest, WordsJoinedWithoutASpaceAreOneWord) {
  const std::vector<pdf::Word> words = {Word("foo", 10, 10, 40, 30, 0, false),
                                        Word("bar", 41, 12, 70, 32, 0, false),
                                        Word("baz", 80, 10, 110, 30, 0, false)};
  const std::vector<pipeline::TextLine> lines = GroupIntoLines(words);
  ASSERT_EQ(lines.size(), 1U);
  ASSERT_EQ(WordTexts(lines[0]), (std::vector<std::string>{"foobar", "baz"}));
  ExpectPoint(lines[0].words[0].box[0], 10, 10);  // the union of "foo" and "bar"
  ExpectPoint(lines[0].words[0].box[2], 70, 32);
}

TEST(GroupIntoLinesTest, RotatedWordsStartWhereTheirReadingStarts) {
  const std::vector<pdf::Word> down = {Word("going", 100, 10, 120, 60, 1),
                                       Word("down", 100, 68, 120, 110, 1, false)};
  const std::vector<pipeline::TextLine> lines = GroupIntoLines(down);
  ASSERT_EQ(lines.size(), 1U);
  ASSERT_EQ(WordTexts(lines[0]), (std::vector<std::string>{"going", "down"}));
  ExpectPoint(lines[0].words[0].box[0], 120, 10);  // top right, as the line's quad
  ExpectPoint(lines[0].words[1].box[0], 120, 68);
  ExpectPoint(lines[0].words[1].box[2], 100, 110);
}

TEST(GroupIntoLinesTest, SplitsColumnsOnTheSameRow) {
  // A gap of 100 px on 20 px text is a column gutter, not a space.
  const std::vector<pdf::Word> words = {Word("left", 10, 10, 50, 30),
                                        Word("right", 150, 10, 200, 30)};
  EXPECT_EQ(Texts(GroupIntoLines(words)), (std::vector<std::string>{"left", "right"}));
}

TEST(GroupIntoLinesTest, CellsOfATableRowStayApart) {
  // 20 px text 24 px apart (1.2 line heights): with a space in the layer, a wide word space (a
  // monospaced or loosely justified line); without one, two cells of a table row.
  const std::vector<pdf::Word> spaced = {Word("Total", 10, 10, 60, 30, 0, true),
                                         Word("due", 84, 10, 120, 30)};
  EXPECT_EQ(Texts(GroupIntoLines(spaced)), (std::vector<std::string>{"Total due"}));
  const std::vector<pdf::Word> cells = {Word("Apples", 10, 10, 70, 30, 0, false),
                                        Word("1,200", 94, 10, 140, 30)};
  EXPECT_EQ(Texts(GroupIntoLines(cells)), (std::vector<std::string>{"Apples", "1,200"}));
}

// Rows of a dense statistical table (20 px text): a state, then two numbers 14 px apart with a
// space between them in the layer, as a layer writes the cells of a tightly set table.
std::vector<pdf::Word> DenseTable(int rows, double top) {
  std::vector<pdf::Word> words;
  for (int r = 0; r < rows; ++r) {
    const double y = top + 30.0 * r;
    const std::string n = std::to_string(r);
    words.push_back(Word("New", 10, y, 45, y + 20));
    words.push_back(Word("York", 50, y, 90, y + 20));
    words.push_back(Word("1,1" + n + "4", 200, y, 247, y + 20));
    words.push_back(Word("19" + n + ".5", 261, y, 308, y + 20));
  }
  return words;
}

TEST(GroupIntoLinesTest, NumbersInColumnsThroughSeveralRowsAreCellsOfTheirOwn) {
  const std::vector<std::string> texts = Texts(GroupIntoLines(DenseTable(4, 10)));
  EXPECT_EQ(texts,
            (std::vector<std::string>{"New York", "1,104", "190.5", "New York", "1,114", "191.5",
                                      "New York", "1,124", "192.5", "New York", "1,134", "193.5"}));
  // Two rows are no column: the numbers stay one line.
  EXPECT_EQ(Texts(GroupIntoLines(DenseTable(2, 10))),
            (std::vector<std::string>{"New York", "1,104 190.5", "New York", "1,114 191.5"}));
}

TEST(GroupIntoLinesTest, WordSpacesThatLineUpStayWordSpaces) {
  // A monospaced listing: "1 years", "2 years" ... with the space of the font (15 px on 20 px
  // text) lining up from row to row, and other words of the same font a space apart.
  std::vector<pdf::Word> words = {Word("Age", 10, 10, 40, 30), Word("by", 55, 10, 70, 30),
                                  Word("single", 85, 10, 175, 30), Word("year", 190, 10, 250, 30)};
  for (int r = 1; r <= 5; ++r) {
    const double y = 10.0 + 30.0 * r;
    words.push_back(Word(std::to_string(r), 10, y, 25, y + 20));
    words.push_back(Word("years", 40, y, 115, y + 20));
  }
  EXPECT_EQ(Texts(GroupIntoLines(words)),
            (std::vector<std::string>{"Age by single year", "1 years", "2 years", "3 years",
                                      "4 years", "5 years"}));
}

TEST(GroupIntoLinesTest, JoinsWithoutSpaceWhenTheLayerHasNone) {
  const std::vector<pdf::Word> words = {Word("foo", 10, 10, 40, 30, 0, false),
                                        Word("bar", 41, 10, 70, 30, 0, false),
                                        Word("baz", 80, 10, 110, 30, 0, false)};
  // No space after "foo" and a 1 px gap: one word; a 10 px gap reads as a space.
  EXPECT_EQ(Texts(GroupIntoLines(words)), (std::vector<std::string>{"foobar baz"}));
}

TEST(GroupIntoLinesTest, StepBackStartsANewLine) {
  // The second word starts left of the first: a new line even on an overlapping row.
  const std::vector<pdf::Word> words = {Word("one", 100, 10, 150, 30), Word("two", 10, 15, 50, 35)};
  EXPECT_EQ(GroupIntoLines(words).size(), 2U);
}

TEST(GroupIntoLinesTest, RotatedWordsGroupAlongTheirDirectionWithQuadsFromReadingStart) {
  // Text running down (page turned 90 degrees clockwise): words stack along y.
  const std::vector<pdf::Word> down = {Word("going", 100, 10, 120, 60, 1),
                                       Word("down", 100, 68, 120, 110, 1, false)};
  const std::vector<pipeline::TextLine> lines = GroupIntoLines(down);
  ASSERT_EQ(Texts(lines), (std::vector<std::string>{"going down"}));
  ExpectPoint(lines[0].box[0], 120, 10);  // top right: where reading starts, glyph tops right
  ExpectPoint(lines[0].box[1], 120, 110);
  ExpectPoint(lines[0].box[2], 100, 110);
  ExpectPoint(lines[0].box[3], 100, 10);

  const std::vector<pdf::Word> up = {Word("up", 10, 50, 30, 100, 3)};
  const std::vector<pipeline::TextLine> up_lines = GroupIntoLines(up);
  ASSERT_EQ(up_lines.size(), 1U);
  ExpectPoint(up_lines[0].box[0], 10, 100);  // bottom left

  const std::vector<pdf::Word> upside_down = {Word("abc", 150, 10, 200, 30, 2),
                                              Word("def", 90, 10, 140, 30, 2, false)};
  const std::vector<pipeline::TextLine> flipped = GroupIntoLines(upside_down);
  ASSERT_EQ(Texts(flipped), (std::vector<std::string>{"abc def"}));
  ExpectPoint(flipped[0].box[0], 200, 30);  // bottom right
}

TEST(GroupIntoLinesTest, DifferentRotationsDoNotMix) {
  const std::vector<pdf::Word> words = {Word("a", 10, 10, 30, 30, 0), Word("b", 31, 10, 51, 30, 1)};
  EXPECT_EQ(GroupIntoLines(words).size(), 2U);
}

TEST(GroupIntoLinesTest, DropsEmptyWords) {
  const std::vector<pdf::Word> words = {Word("", 10, 10, 30, 30), Word("x", 40, 40, 40, 60),
                                        Word("ok", 10, 70, 30, 90)};
  EXPECT_EQ(Texts(GroupIntoLines(words)), (std::vector<std::string>{"ok"}));
  EXPECT_TRUE(GroupIntoLines({}).empty());
}

pipeline::TextLine Line(std::string text) {
  return {std::move(text), 1.0F, {}, {}};
}

TEST(IsUsableTextLayerTest, RealTextIsUsable) {
  const std::vector<pipeline::TextLine> lines = {Line("Hello"), Line("Grüße, 世界")};
  EXPECT_TRUE(IsUsableTextLayer(lines));
}

TEST(IsUsableTextLayerTest, EmptyWhitespaceAndTinyAreNot) {
  EXPECT_FALSE(IsUsableTextLayer({}));
  const std::vector<pipeline::TextLine> blank = {Line("   "), Line("\t\xC2\xA0")};
  EXPECT_FALSE(IsUsableTextLayer(blank));
  const std::vector<pipeline::TextLine> tiny = {Line("7")};
  EXPECT_FALSE(IsUsableTextLayer(tiny));
}

TEST(IsUsableTextLayerTest, UnmappedGlyphsAreNot) {
  // U+FFFD, private use and controls: what fonts without a ToUnicode map give.
  const std::vector<pipeline::TextLine> garbage = {
      Line("\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"), Line("\xEE\x80\x81\xEE\x80\x82"),
      Line("\x01\x02\x03 ab")};
  EXPECT_FALSE(IsUsableTextLayer(garbage));
  const std::vector<pipeline::TextLine> invalid_utf8 = {Line("\xFF\xFE\xC3")};
  EXPECT_FALSE(IsUsableTextLayer(invalid_utf8));
  // One odd glyph in a page of text does not make it garbage.
  const std::vector<pipeline::TextLine> mostly_fine = {
      Line("A perfectly readable sentence \xEF\xBF\xBD here")};
  EXPECT_TRUE(IsUsableTextLayer(mostly_fine));
}

}  // namespace
}  // namespace ocr::document
