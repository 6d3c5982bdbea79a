// Tests for layout/layout: paragraph grouping on hand-built boxes, and the exact text, Markdown
// and HTML they are written as (document/render.h). Body lines are 20 px tall on a 30 px pitch
// unless a test says otherwise.
#include "layout/layout.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "document/render.h"
#include "support/hand_lines.h"

namespace ocr::layout {
namespace {

using document::FormatHtml;
using document::FormatMarkdown;
using document::FormatText;
using pipeline::Point;
using pipeline::TextLine;
using ::testing::ElementsAre;
using testing::Line;
using ::testing::SizeIs;

// A line of `width` x `height` centred on (cx, cy), turned clockwise on screen by `degrees`.
TextLine TiltedLine(std::string text, float cx, float cy, float width, float height,
                    float degrees) {
  const double rad = degrees * std::numbers::pi / 180.0;
  const auto c = static_cast<float>(std::cos(rad));
  const auto s = static_cast<float>(std::sin(rad));
  auto at = [&](float dx, float dy) { return Point{cx + dx * c - dy * s, cy + dx * s + dy * c}; };
  TextLine line;
  line.text = std::move(text);
  line.box = {at(-width / 2, -height / 2), at(width / 2, -height / 2), at(width / 2, height / 2),
              at(-width / 2, height / 2)};
  return line;
}

// A body line of the left (x 50..450) or right (x 550..950) column whose top is at `top`.
TextLine Left(std::string text, float top) {
  return Line(std::move(text), 50, top, 450, top + 20);
}

TextLine Right(std::string text, float top) {
  return Line(std::move(text), 550, top, 950, top + 20);
}

// A text block as the tests below read it: its rows' texts (a row's lines joined by a space), and
// whether it is a heading.
struct Paragraph {
  std::vector<std::string> lines;
  bool heading = false;
};

std::vector<Paragraph> GroupParagraphs(const std::vector<TextLine>& lines) {
  std::vector<Paragraph> out;
  for (const Block& block : AnalyzeLayout(lines)) {
    Paragraph paragraph{{}, block.type == BlockType::kHeading};
    for (const std::vector<std::size_t>& row : block.rows) {
      std::string text;
      for (std::size_t index : row) {
        text += (text.empty() ? "" : " ") + NormalizeText(lines[index].text);
      }
      paragraph.lines.push_back(text);
    }
    out.push_back(std::move(paragraph));
  }
  return out;
}

TEST(LayoutTest, OneParagraphOfThreeLines) {
  const std::vector<TextLine> lines = {Left("alpha", 100), Left("beta", 130),
                                       Line("gamma", 50, 160, 300, 180)};
  const std::vector<Paragraph> paragraphs = GroupParagraphs(lines);
  ASSERT_THAT(paragraphs, SizeIs(1));
  EXPECT_THAT(paragraphs[0].lines, ElementsAre("alpha", "beta", "gamma"));
  EXPECT_FALSE(paragraphs[0].heading);
}

TEST(LayoutTest, SingleLineIsOneParagraph) {
  const std::vector<TextLine> lines = {Line("only", 10, 10, 60, 30)};
  const std::vector<Paragraph> paragraphs = GroupParagraphs(lines);
  ASSERT_THAT(paragraphs, SizeIs(1));
  EXPECT_THAT(paragraphs[0].lines, ElementsAre("only"));
  EXPECT_FALSE(paragraphs[0].heading);
}

TEST(LayoutTest, LargeGapSplitsParagraphs) {
  // 10 px between lines of a paragraph, 40 px (2 line heights) between the paragraphs.
  const std::vector<TextLine> lines = {Left("a1", 100), Left("a2", 130), Left("b1", 190),
                                       Left("b2", 220)};
  const std::vector<Paragraph> paragraphs = GroupParagraphs(lines);
  ASSERT_THAT(paragraphs, SizeIs(2));
  EXPECT_THAT(paragraphs[0].lines, ElementsAre("a1", "a2"));
  EXPECT_THAT(paragraphs[1].lines, ElementsAre("b1", "b2"));
}

TEST(LayoutTest, IndentedFirstLineStartsParagraph) {
  // Evenly spaced: only the 40 px indent of "b1" marks the new paragraph, and "b2" going back to
  // the margin continues it.
  const std::vector<TextLine> lines = {Left("a1", 100), Left("a2", 130),
                                       Line("a3", 50, 160, 250, 180), Line("b1", 90, 190, 450, 210),
                                       Left("b2", 220)};
  const std::vector<Paragraph> paragraphs = GroupParagraphs(lines);
  ASSERT_THAT(paragraphs, SizeIs(2));
  EXPECT_THAT(paragraphs[0].lines, ElementsAre("a1", "a2", "a3"));
  EXPECT_THAT(paragraphs[1].lines, ElementsAre("b1", "b2"));
}

TEST(LayoutTest, IndentedBlockEndsWhenTextMovesBackLeft) {
  const std::vector<TextLine> lines = {Left("body", 100), Line("quote 1", 100, 130, 400, 150),
                                       Line("quote 2", 100, 160, 400, 180), Left("more", 190)};
  const std::vector<Paragraph> paragraphs = GroupParagraphs(lines);
  ASSERT_THAT(paragraphs, SizeIs(3));
  EXPECT_THAT(paragraphs[0].lines, ElementsAre("body"));
  EXPECT_THAT(paragraphs[1].lines, ElementsAre("quote 1", "quote 2"));
  EXPECT_THAT(paragraphs[2].lines, ElementsAre("more"));
}

TEST(LayoutTest, TwoColumnsReadLeftColumnFirst) {
  // Interleaved as the pipeline's row sort gives them; each column has two paragraphs.
  const std::vector<TextLine> lines = {
      Left("L1", 100),  Right("R1", 100), Left("L2", 130),  Right("R2", 130), Left("L3", 160),
      Right("R3", 190), Left("L4", 220),  Right("R4", 220), Left("L5", 250),  Right("R5", 250)};
  const std::vector<Paragraph> paragraphs = GroupParagraphs(lines);
  ASSERT_THAT(paragraphs, SizeIs(4));
  EXPECT_THAT(paragraphs[0].lines, ElementsAre("L1", "L2", "L3"));
  EXPECT_THAT(paragraphs[1].lines, ElementsAre("L4", "L5"));
  EXPECT_THAT(paragraphs[2].lines, ElementsAre("R1", "R2"));
  EXPECT_THAT(paragraphs[3].lines, ElementsAre("R3", "R4", "R5"));
}

TEST(LayoutTest, ThreeColumnsReadLeftToRight) {
  const std::vector<TextLine> lines = {
      Line("A1", 50, 100, 300, 120),  Line("B1", 350, 100, 600, 120),
      Line("C1", 650, 100, 900, 120), Line("A2", 50, 130, 300, 150),
      Line("B2", 350, 130, 600, 150), Line("C2", 650, 130, 900, 150)};
  const std::vector<Paragraph> paragraphs = GroupParagraphs(lines);
  ASSERT_THAT(paragraphs, SizeIs(3));
  EXPECT_THAT(paragraphs[0].lines, ElementsAre("A1", "A2"));
  EXPECT_THAT(paragraphs[1].lines, ElementsAre("B1", "B2"));
  EXPECT_THAT(paragraphs[2].lines, ElementsAre("C1", "C2"));
}

TEST(LayoutTest, TallTitleAboveTwoColumnsComesFirstAsHeading) {
  // A centred title (x 300..700) crosses the gutter (x 450..550) and is twice the body height.
  const std::vector<TextLine> lines = {Line("Title", 300, 30, 700, 70),
                                       Left("L1", 100),
                                       Right("R1", 100),
                                       Left("L2", 130),
                                       Right("R2", 130),
                                       Left("L3", 160),
                                       Right("R3", 160)};
  const std::vector<Paragraph> paragraphs = GroupParagraphs(lines);
  ASSERT_THAT(paragraphs, SizeIs(3));
  EXPECT_THAT(paragraphs[0].lines, ElementsAre("Title"));
  EXPECT_TRUE(paragraphs[0].heading);
  EXPECT_THAT(paragraphs[1].lines, ElementsAre("L1", "L2", "L3"));
  EXPECT_FALSE(paragraphs[1].heading);
  EXPECT_THAT(paragraphs[2].lines, ElementsAre("R1", "R2", "R3"));
  EXPECT_EQ(FormatMarkdown(lines), "# Title\n\nL1 L2 L3\n\nR1 R2 R3\n");
  EXPECT_EQ(FormatHtml(lines), "<h1>Title</h1>\n<p>L1<br>L2<br>L3</p>\n<p>R1<br>R2<br>R3</p>\n");
}

TEST(LayoutTest, FullWidthLineBetweenColumnSectionsSplitsThem) {
  // Body-height spanning line: not a heading, but still read between the two column sections.
  const std::vector<TextLine> lines = {Left("L1", 100),
                                       Right("R1", 100),
                                       Left("L2", 130),
                                       Right("R2", 130),
                                       Line("Across", 50, 170, 950, 190),
                                       Left("L3", 230),
                                       Right("R3", 230),
                                       Left("L4", 260),
                                       Right("R4", 260)};
  const std::vector<Paragraph> paragraphs = GroupParagraphs(lines);
  ASSERT_THAT(paragraphs, SizeIs(5));
  EXPECT_THAT(paragraphs[0].lines, ElementsAre("L1", "L2"));
  EXPECT_THAT(paragraphs[1].lines, ElementsAre("R1", "R2"));
  EXPECT_THAT(paragraphs[2].lines, ElementsAre("Across"));
  EXPECT_FALSE(paragraphs[2].heading);
  EXPECT_THAT(paragraphs[3].lines, ElementsAre("L3", "L4"));
  EXPECT_THAT(paragraphs[4].lines, ElementsAre("R3", "R4"));
}

TEST(LayoutTest, BoxesOnOneRowOfAColumnAreJoinedLeftToRight) {
  // "world" comes first in the input and sits 1 px lower: still the same row, read after "Hello".
  const std::vector<TextLine> lines = {Line("world", 165, 101, 300, 121),
                                       Line("Hello", 50, 100, 150, 120), Left("next line", 130)};
  const std::vector<Paragraph> paragraphs = GroupParagraphs(lines);
  ASSERT_THAT(paragraphs, SizeIs(1));
  EXPECT_THAT(paragraphs[0].lines, ElementsAre("Hello world", "next line"));
  EXPECT_EQ(FormatText(lines), "world\nHello\nnext line\n");  // text keeps the given order
}

TEST(LayoutTest, NarrowValueColumnIsReadRowByRow) {
  // A receipt: prices far to the right are too narrow a block to be a column of their own.
  const std::vector<TextLine> lines = {
      Line("Milk", 50, 100, 130, 120),  Line("2.99", 400, 100, 460, 120),
      Line("Bread", 50, 130, 140, 150), Line("1.50", 400, 130, 460, 150),
      Line("Eggs", 50, 160, 130, 180),  Line("3.20", 400, 160, 460, 180)};
  const std::vector<Paragraph> paragraphs = GroupParagraphs(lines);
  ASSERT_THAT(paragraphs, SizeIs(1));
  EXPECT_THAT(paragraphs[0].lines, ElementsAre("Milk 2.99", "Bread 1.50", "Eggs 3.20"));
}

TEST(LayoutTest, TiltedLineKeepsItsTextHeight) {
  // Turned 3 degrees, the middle line's bounding rectangle is ~41 px tall, which would make it a
  // heading and overlap its neighbours; its edges are 20 px long, like the others.
  const std::vector<TextLine> lines = {Left("one", 100), TiltedLine("two", 250, 140, 400, 20, 3),
                                       Left("three", 160)};
  const std::vector<Paragraph> paragraphs = GroupParagraphs(lines);
  ASSERT_THAT(paragraphs, SizeIs(1));
  EXPECT_THAT(paragraphs[0].lines, ElementsAre("one", "two", "three"));
  EXPECT_FALSE(paragraphs[0].heading);
}

TEST(LayoutTest, WholePageTiltedStillGroups) {
  std::vector<TextLine> lines;
  const float rad = 8.0F * std::numbers::pi_v<float> / 180.0F;
  // Centres 30 px apart along the page's tilted vertical axis; a 50 px gap after the third line.
  const std::vector<float> offsets = {0, 30, 60, 130, 160};
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    const float d = offsets[i];
    lines.push_back(TiltedLine("t" + std::to_string(i), 250 - d * std::sin(rad),
                               110 + d * std::cos(rad), 400, 20, 8));
  }
  const std::vector<Paragraph> paragraphs = GroupParagraphs(lines);
  ASSERT_THAT(paragraphs, SizeIs(2));
  EXPECT_THAT(paragraphs[0].lines, ElementsAre("t0", "t1", "t2"));
  EXPECT_THAT(paragraphs[1].lines, ElementsAre("t3", "t4"));
}

TEST(LayoutTest, TextHeightChangesSplitParagraphs) {
  // 40 px heading over two lines, 20 px body, then 10 px footnotes with no extra gap.
  const std::vector<TextLine> lines = {Line("Big title", 50, 20, 450, 60),
                                       Line("goes on", 50, 65, 300, 105),
                                       Left("body 1", 120),
                                       Left("body 2", 150),
                                       Left("body 3", 180),
                                       Line("note 1", 50, 205, 300, 215),
                                       Line("note 2", 50, 220, 300, 230)};
  const std::vector<Paragraph> paragraphs = GroupParagraphs(lines);
  ASSERT_THAT(paragraphs, SizeIs(3));
  EXPECT_THAT(paragraphs[0].lines, ElementsAre("Big title", "goes on"));
  EXPECT_TRUE(paragraphs[0].heading);
  EXPECT_THAT(paragraphs[1].lines, ElementsAre("body 1", "body 2", "body 3"));
  EXPECT_FALSE(paragraphs[1].heading);
  EXPECT_THAT(paragraphs[2].lines, ElementsAre("note 1", "note 2"));
  EXPECT_FALSE(paragraphs[2].heading);
  EXPECT_EQ(FormatMarkdown(lines),
            "# Big title goes on\n\nbody 1 body 2 body 3\n\nnote 1 note 2\n");
  EXPECT_EQ(FormatHtml(lines),
            "<h1>Big title goes on</h1>\n<p>body 1<br>body 2<br>body 3</p>\n"
            "<p>note 1<br>note 2</p>\n");
}

TEST(LayoutTest, EmptyInputGivesEmptyOutputs) {
  const std::vector<TextLine> none;
  EXPECT_TRUE(GroupParagraphs(none).empty());
  EXPECT_EQ(FormatText(none), "");
  EXPECT_EQ(FormatMarkdown(none), "");
  EXPECT_EQ(FormatHtml(none), "");
}

TEST(LayoutTest, BlankTextsAreLeftOutOfParagraphs) {
  const std::vector<TextLine> blanks = {Left("  ", 100), Left("", 130)};
  EXPECT_TRUE(GroupParagraphs(blanks).empty());
  EXPECT_EQ(FormatMarkdown(blanks), "");
  EXPECT_EQ(FormatHtml(blanks), "");
  EXPECT_EQ(FormatText(blanks), "\n\n");  // one line per input line, even an empty one
}

TEST(LayoutTest, BoxesWithoutGeometryKeepOneParagraphPerLine) {
  const std::vector<TextLine> lines = {Line("a", 0, 0, 0, 0), Line("b", 0, 0, 0, 0),
                                       Line("c", 0, 0, 0, 0)};
  const std::vector<Paragraph> paragraphs = GroupParagraphs(lines);
  ASSERT_THAT(paragraphs, SizeIs(3));
  EXPECT_THAT(paragraphs[0].lines, ElementsAre("a"));
  EXPECT_THAT(paragraphs[1].lines, ElementsAre("b"));
  EXPECT_THAT(paragraphs[2].lines, ElementsAre("c"));
}

TEST(LayoutTest, NonFiniteCoordinatesKeepEveryLine) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<TextLine> lines = {Left("a", 100), Line("b", nan, nan, inf, inf),
                                       Line("c", -inf, 0, 1e30F, 1e30F), Left("d", 130)};
  // Clamped, "b" and "c" may share a row (and be joined); every word must still be there once.
  std::vector<std::string> seen;
  for (const Paragraph& p : GroupParagraphs(lines)) {
    for (const std::string& line : p.lines) {
      std::istringstream words(line);
      for (std::string word; words >> word;) {
        seen.push_back(word);
      }
    }
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_THAT(seen, ElementsAre("a", "b", "c", "d"));
}

}  // namespace
}  // namespace ocr::layout
