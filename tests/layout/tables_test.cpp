// Tests for layout/rulings and layout/tables through AnalyzeLayout: rulings found in drawn
// pages, ruled and unruled tables from hand-placed boxes, what must stay paragraphs, and the exact
// Markdown and HTML of tables and lists. Cell text lines are 20 px tall.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include "document/render.h"
#include "layout/layout.h"
#include "layout/rulings.h"
#include "layout/shading.h"
#include "support/hand_lines.h"

namespace ocr::layout {
namespace {

using pipeline::Point;
using pipeline::TextLine;
using ::testing::ElementsAre;
using testing::Line;
using ::testing::SizeIs;

cv::Mat WhitePage(int width, int height) {
  return cv::Mat(height, width, CV_8UC3, cv::Scalar(255, 255, 255));
}

// Draws `lines` as dark blobs the size of their text (the way glyphs darken a page), so ruling
// detection sees text beside its rules.
void DrawText(cv::Mat& page, const std::vector<TextLine>& lines) {
  for (const TextLine& line : lines) {
    const Point a = line.box[0];
    const Point c = line.box[2];
    for (float x = a.x + 2; x + 6 < c.x; x += 9) {
      cv::rectangle(page, cv::Point2f(x, a.y + 4), cv::Point2f(x + 5, c.y - 4),
                    cv::Scalar(30, 30, 30), cv::FILLED);
    }
  }
}

// Light grey stripes (#e6e6e6) 40 px tall from each of `tops`, from x0 to x1.
void DrawStripes(cv::Mat& page, int x0, int x1, const std::vector<int>& tops) {
  for (int y : tops) {
    cv::rectangle(page, cv::Point(x0, y), cv::Point(x1, y + 39), cv::Scalar(230, 230, 230),
                  cv::FILLED);
  }
}

std::vector<Block> Layout(const std::vector<TextLine>& lines, const cv::Mat& page) {
  return AnalyzeLayout(lines, [&page]() { return page; });
}

// The one table of `blocks` (which must outlive the pointer), or null when there is none or more.
const Block* OnlyTable(const std::vector<Block>& blocks);
const Block* OnlyTable(std::vector<Block>&& blocks) = delete;  // would dangle

const Block* OnlyTable(const std::vector<Block>& blocks) {
  const Block* found = nullptr;
  for (const Block& b : blocks) {
    if (b.type == BlockType::kTable) {
      if (found != nullptr) {
        return nullptr;
      }
      found = &b;
    }
  }
  return found;
}

TEST(RulingsTest, FindsTheRulesOfAGridAndNothingInText) {
  cv::Mat page = WhitePage(600, 300);
  for (int y : {50, 90, 130, 170}) {
    cv::line(page, {40, y}, {560, y}, cv::Scalar(60, 60, 60), 1);
  }
  for (int x : {40, 200, 380, 560}) {
    cv::line(page, {x, 50}, {x, 170}, cv::Scalar(153, 153, 153), 1);  // light grey, #999
  }
  // Text and specks: short strokes, none a ruling.
  DrawText(page, {Line("some words here", 50, 200, 300, 220)});
  for (int i = 0; i < 40; ++i) {
    cv::circle(page, {13 * i + 20, 260 + (i % 5) * 6}, 1, cv::Scalar(0, 0, 0), cv::FILLED);
  }
  const std::vector<Ruling> rulings = FindRulings(page, 20.0F);
  std::vector<float> rows;
  std::vector<float> columns;
  for (const Ruling& r : rulings) {
    if (r.Horizontal()) {
      EXPECT_NEAR(r.x0, 40, 2);
      EXPECT_NEAR(r.x1, 560, 2);
      rows.push_back(r.y0);
    } else {
      EXPECT_NEAR(r.y0, 50, 2);
      EXPECT_NEAR(r.y1, 170, 2);
      columns.push_back(r.x0);
    }
  }
  ASSERT_THAT(rows, SizeIs(4));
  ASSERT_THAT(columns, SizeIs(4));
  std::sort(rows.begin(), rows.end());
  std::sort(columns.begin(), columns.end());
  EXPECT_NEAR(rows[0], 50, 1);
  EXPECT_NEAR(rows[3], 170, 1);
  EXPECT_NEAR(columns[1], 200, 1);
  EXPECT_NEAR(columns[2], 380, 1);

  EXPECT_TRUE(FindRulings(cv::Mat(), 20.0F).empty());
  EXPECT_TRUE(FindRulings(page, 0.0F).empty());
}

TEST(ShadingTest, FindsZebraStripesAndADarkHeaderRowButNoText) {
  cv::Mat page = WhitePage(800, 400);
  // A dark header row with light text in it, and two light grey stripes (#e6e6e6).
  cv::rectangle(page, cv::Point(40, 60), cv::Point(720, 99), cv::Scalar(50, 50, 50), cv::FILLED);
  for (int x = 60; x < 650; x += 9) {
    cv::rectangle(page, cv::Point(x, 72), cv::Point(x + 4, 88), cv::Scalar(250, 250, 250),
                  cv::FILLED);
  }
  // Dense light text leaves no dark room across the band here; the band goes on past it.
  cv::rectangle(page, cv::Point(300, 64), cv::Point(330, 95), cv::Scalar(250, 250, 250),
                cv::FILLED);
  DrawStripes(page, 40, 720, {140, 220});
  // Text on the stripes and on the paper; none of it is a band.
  DrawText(page, {Line("on a stripe", 60, 150, 300, 170), Line("on the paper", 60, 190, 400, 210),
                  Line("below the table", 60, 320, 700, 340)});
  std::vector<Band> bands = FindBands(page, 20.0F);
  ASSERT_THAT(bands, SizeIs(3));
  std::sort(bands.begin(), bands.end(), [](const Band& a, const Band& b) { return a.top < b.top; });
  const std::vector<float> tops = {60, 140, 220};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(bands[i].top, tops[i], 3) << i;
    EXPECT_NEAR(bands[i].bottom, tops[i] + 40, 3) << i;
    EXPECT_NEAR(bands[i].left, 40, 3) << i;
    EXPECT_NEAR(bands[i].right, 721, 3) << i;
  }
  EXPECT_LT(bands[0].fill, 128);
  EXPECT_GT(bands[1].fill, 200);

  EXPECT_TRUE(FindBands(cv::Mat(), 20.0F).empty());
  EXPECT_TRUE(FindBands(WhitePage(800, 400), 20.0F).empty());
}

// A ruled 3 x 3 grid whose first row's two right cells are one (no rule between them): a header
// cell spanning the two numeric columns.
TEST(TablesTest, RuledGridWithASpanningHeaderCell) {
  cv::Mat page = WhitePage(700, 400);
  const std::vector<int> ys = {100, 140, 180, 220};
  const std::vector<int> xs = {50, 250, 450, 650};
  for (int y : ys) {
    cv::line(page, {50, y}, {650, y}, cv::Scalar(0, 0, 0), 1);
  }
  for (int x : xs) {
    // The rule between the second and third columns starts below the first row.
    cv::line(page, {x, x == 450 ? 140 : 100}, {x, 220}, cv::Scalar(0, 0, 0), 1);
  }
  const std::vector<TextLine> lines = {
      Line("Intro text above the table", 50, 40, 400, 60),
      Line("Item", 60, 110, 120, 130),
      Line("Revenue", 300, 110, 400, 130),
      Line("Apples", 60, 150, 140, 170),
      Line("1,200", 380, 150, 440, 170),
      Line("1,450", 580, 150, 640, 170),
      Line("Pears", 60, 190, 130, 210),
      Line("880", 400, 190, 440, 210),
      Line("910", 600, 190, 640, 210),
  };
  DrawText(page, lines);
  const std::vector<Block> blocks = Layout(lines, page);
  ASSERT_THAT(blocks, SizeIs(2));
  EXPECT_EQ(blocks[0].type, BlockType::kParagraph);
  const Block* table = OnlyTable(blocks);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->table.row_count, 3);
  EXPECT_EQ(table->table.col_count, 3);
  EXPECT_EQ(table->table.header_rows, 1);
  EXPECT_NEAR(table->left, 50, 2);
  EXPECT_NEAR(table->bottom, 220, 2);
  EXPECT_EQ(FormatHtml(lines, blocks),
            "<p>Intro text above the table</p>\n"
            "<table>\n<thead>\n<tr><th>Item</th><th colspan=\"2\">Revenue</th></tr>\n</thead>\n"
            "<tbody>\n<tr><td>Apples</td><td>1,200</td><td>1,450</td></tr>\n"
            "<tr><td>Pears</td><td>880</td><td>910</td></tr>\n</tbody>\n</table>\n");
  // A span a pipe table cannot express: the table is HTML inside the Markdown.
  EXPECT_EQ(FormatMarkdown(lines, blocks),
            "Intro text above the table\n\n<table>\n<thead>\n<tr><th>Item</th><th "
            "colspan=\"2\">Revenue</th></tr>\n</thead>\n<tbody>\n<tr><td>Apples</td><td>1,200</"
            "td><td>1,450</td></tr>\n<tr><td>Pears</td><td>880</td><td>910</td></tr>\n</"
            "tbody>\n</table>\n");
}

// Four columns, a header row and four body rows, no rules at all: alignment alone.
std::vector<TextLine> UnruledTable(float top) {
  std::vector<TextLine> lines = {
      Line("Name", 50, top, 120, top + 20), Line("Qty", 300, top, 350, top + 20),
      Line("Price", 450, top, 520, top + 20), Line("City", 650, top, 710, top + 20)};
  const std::vector<std::string> names = {"Apples | red", "Pears", "Plums", "Figs"};
  for (int r = 0; r < 4; ++r) {
    const float y = top + 35.0F * static_cast<float>(r + 1);
    lines.push_back(Line(names[static_cast<std::size_t>(r)], 50, y, 180, y + 20));
    lines.push_back(Line(std::to_string(10 + r), 320, y, 350, y + 20));
    lines.push_back(Line(std::to_string(r) + ".50", 470, y, 520, y + 20));
    lines.push_back(Line(r % 2 == 0 ? "Oslo" : "Rome", 650, y, 700, y + 20));
  }
  return lines;
}

// A zero alone in a cell of a column of numbers, read by the recognizer as the letter o, is a zero
// again once the page is laid out; an o in a column of words stays a letter.
TEST(TablesTest, ALoneOInAColumnOfNumbersIsAZero) {
  std::vector<TextLine> lines = UnruledTable(100);
  lines[9].text = "o";  // the second row's Qty
  lines[7].text = "o";  // the first row's City
  const cv::Mat page(400, 800, CV_8UC3, cv::Scalar(255, 255, 255));
  const std::vector<Block> blocks = AnalyzeOcrLayout(lines, page);
  ASSERT_NE(OnlyTable(blocks), nullptr);
  EXPECT_EQ(lines[9].text, "0");
  EXPECT_EQ(lines[7].text, "o");
}

TEST(TablesTest, UnruledGridFromAlignmentAsAPipeTable) {
  const std::vector<TextLine> lines = UnruledTable(100);
  const std::vector<Block> blocks = AnalyzeLayout(lines);
  const Block* table = OnlyTable(blocks);
  ASSERT_NE(table, nullptr);
  ASSERT_THAT(blocks, SizeIs(1));
  EXPECT_EQ(table->table.row_count, 5);
  EXPECT_EQ(table->table.col_count, 4);
  EXPECT_EQ(table->table.header_rows, 1);  // text over numeric columns
  ASSERT_THAT(table->table.cells, SizeIs(20));
  EXPECT_EQ(table->table.cells[5].rows, (TextRows{{5}}));  // row 1, column 1: "10"
  EXPECT_EQ(FormatMarkdown(lines, blocks),
            "| Name | Qty | Price | City |\n| --- | --- | --- | --- |\n"
            "| Apples \\| red | 10 | 0.50 | Oslo |\n| Pears | 11 | 1.50 | Rome |\n"
            "| Plums | 12 | 2.50 | Oslo |\n| Figs | 13 | 3.50 | Rome |\n");
}

TEST(TablesTest, SkewedUnruledTableIsStraightenedFirst) {
  // The table of UnruledTable turned by 1.5 degrees about the origin: over its 650 px width a
  // row drifts by 17 px, most of a row's height.
  std::vector<TextLine> lines = UnruledTable(100);
  const double a = 1.5 * std::numbers::pi / 180;
  for (TextLine& line : lines) {
    for (Point& p : line.box) {
      p = Point{static_cast<float>(p.x * std::cos(a) - p.y * std::sin(a)),
                static_cast<float>(p.x * std::sin(a) + p.y * std::cos(a))};
    }
  }
  const std::vector<Block> blocks = AnalyzeLayout(lines);
  const Block* table = OnlyTable(blocks);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->table.row_count, 5);
  EXPECT_EQ(table->table.col_count, 4);
}

TEST(TablesTest, WrappedCellStaysOneRow) {
  std::vector<TextLine> lines = UnruledTable(100);
  // The last row's "Figs" wraps onto a second line right under it.
  lines.push_back(Line("dried", 50, 262, 110, 282));
  const std::vector<Block> blocks = AnalyzeLayout(lines);
  const Block* table = OnlyTable(blocks);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->table.row_count, 5);
  const TableCell& figs = table->table.cells[16];
  EXPECT_EQ(figs.row, 4);
  EXPECT_EQ(figs.col, 0);
  EXPECT_EQ(figs.rows, (TextRows{{16}, {20}}));
  EXPECT_THAT(FormatHtml(lines), ::testing::HasSubstr("<td>Figs<br>dried</td>"));
}

// Four columns of rows `pitch` apart from `top`: Name, Qty, Price, City (the header first).
std::vector<TextLine> SpacedTable(float top, float pitch, int rows) {
  std::vector<TextLine> lines;
  for (int r = 0; r < rows; ++r) {
    const float y = top + pitch * static_cast<float>(r);
    const std::string n = std::to_string(r);
    lines.push_back(Line(r == 0 ? "Name" : "Item " + n, 50, y, 150, y + 20));
    lines.push_back(Line(r == 0 ? "Qty" : "1" + n, 320, y, 350, y + 20));
    lines.push_back(Line(r == 0 ? "Price" : n + ".50", 470, y, 520, y + 20));
    lines.push_back(Line(r == 0 ? "City" : "Oslo", 650, y, 700, y + 20));
  }
  return lines;
}

// Rows shaded alternately (zebra stripes, no rules): the stripes divide the rows, so a cell whose
// second line sits further below it than a wrapped line usually does stays one row, while the
// unshaded header over the unshaded first row stays two.
TEST(TablesTest, ZebraStripesKeepAWrappedCellInItsRow) {
  std::vector<TextLine> lines = SpacedTable(100, 40, 5);
  for (TextLine& line : lines) {
    if (line.box[0].y >= 180) {  // the rows under the first make room for its second line
      for (Point& p : line.box) {
        p.y += 30;
      }
    }
  }
  lines.push_back(Line("in two lines", 50, 170, 150, 190));  // 10 px (0.5 h) under "Item 1"
  cv::Mat page = WhitePage(800, 400);
  DrawStripes(page, 40, 720, {200, 280});  // behind the second and fourth body rows
  DrawText(page, lines);
  const std::vector<Block> blocks = Layout(lines, page);
  const Block* table = OnlyTable(blocks);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->table.row_count, 5);
  EXPECT_EQ(table->table.col_count, 4);
  EXPECT_EQ(table->table.cells[4].rows, (TextRows{{4}, {20}}));  // "Item 1", "in two lines"
}

// Rules under every row and none between the columns: the rules divide the rows.
TEST(TablesTest, RulesUnderEveryRowKeepAWrappedCellInItsRow) {
  std::vector<TextLine> lines = SpacedTable(100, 40, 4);
  for (TextLine& line : lines) {
    if (line.box[0].y >= 180) {
      for (Point& p : line.box) {
        p.y += 30;
      }
    }
  }
  lines.push_back(Line("wrapped", 50, 170, 140, 190));  // under "Item 1"
  cv::Mat page = WhitePage(800, 400);
  for (int y : {130, 200, 240, 280}) {
    cv::line(page, {40, y}, {720, y}, cv::Scalar(60, 60, 60), 1);
  }
  DrawText(page, lines);
  const std::vector<Block> blocks = Layout(lines, page);
  const Block* table = OnlyTable(blocks);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->table.row_count, 4);
  EXPECT_EQ(table->table.cells[4].rows, (TextRows{{4}, {16}}));
}

// A framed statistical table ruled only around its blocks (a census table: a rule under the
// header, one between two groups of rows): each row of numbers is a row, not the block.
TEST(TablesTest, RulesAroundBlocksOfNumbersKeepEachRow) {
  std::vector<TextLine> lines = {Line("Category", 50, 100, 150, 120),
                                 Line("Number", 320, 100, 400, 120),
                                 Line("Percent", 500, 100, 580, 120)};
  const std::vector<std::string> labels = {"All ages",   "With a disability", "Severe",
                                           "Aged 15 up", "With a disability", "Severe"};
  std::vector<float> tops;
  for (int r = 0; r < 6; ++r) {
    const float y = 140.0F + 26.0F * static_cast<float>(r) + (r >= 3 ? 20.0F : 0.0F);
    tops.push_back(y);
    const std::string n = std::to_string(r);
    lines.push_back(Line(labels[static_cast<std::size_t>(r)], 50, y, 200, y + 20));
    lines.push_back(Line("5" + n + ",425", 330, y, 400, y + 20));
    lines.push_back(Line("1" + n + ".7", 530, y, 580, y + 20));
  }
  cv::Mat page = WhitePage(700, 400);
  for (int y : {90, 130, 225, 325}) {  // top, under the header, between the blocks, bottom
    cv::line(page, {40, y}, {620, y}, cv::Scalar(60, 60, 60), 1);
  }
  for (int x : {40, 620}) {
    cv::line(page, {x, 90}, {x, 325}, cv::Scalar(60, 60, 60), 1);
  }
  DrawText(page, lines);
  const std::vector<Block> blocks = Layout(lines, page);
  const Block* table = OnlyTable(blocks);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->table.row_count, 7);
  EXPECT_EQ(table->table.col_count, 3);
  EXPECT_THAT(FormatHtml(lines, blocks),
              ::testing::HasSubstr("<tr><td>With a disability</td><td>51,425</td>"
                                   "<td>11.7</td></tr>\n<tr><td>Severe</td>"));
}

// A table set in two blocks of label and value side by side, a rule between the blocks and none
// between a label and its value: four columns, as the text lines up.
TEST(TablesTest, ColumnsOfTextBetweenTwoRulesAreColumns) {
  std::vector<TextLine> lines = {Line("Age", 50, 100, 90, 120), Line("Total", 320, 100, 380, 120),
                                 Line("Age", 410, 100, 450, 120),
                                 Line("Total", 680, 100, 740, 120)};
  for (int r = 0; r < 5; ++r) {
    const float y = 140.0F + 30.0F * static_cast<float>(r);
    const std::string n = std::to_string(r + 1);
    lines.push_back(Line(n + " years", 50, y, 130, y + 20));
    lines.push_back(Line("3,2" + n + "9,557", 280, y, 380, y + 20));
    lines.push_back(Line("4" + n + " years", 410, y, 500, y + 20));
    lines.push_back(Line("2,3" + n + "5,849", 640, y, 740, y + 20));
  }
  cv::Mat page = WhitePage(800, 400);
  for (int y : {90, 130, 300}) {
    cv::line(page, {40, y}, {760, y}, cv::Scalar(60, 60, 60), 1);
  }
  for (int x : {40, 400, 760}) {
    cv::line(page, {x, 90}, {x, 300}, cv::Scalar(60, 60, 60), 1);
  }
  DrawText(page, lines);
  const std::vector<Block> blocks = Layout(lines, page);
  const Block* table = OnlyTable(blocks);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->table.row_count, 6);
  EXPECT_EQ(table->table.col_count, 4);
  EXPECT_THAT(FormatHtml(lines, blocks),
              ::testing::HasSubstr("<tr><td>1 years</td><td>3,219,557</td><td>41 years</td>"
                                   "<td>2,315,849</td></tr>"));
}

// Light letters on a dark column read as vertical rules through the text (their stems line up
// from row to row): they are no borders, and the column stays one.
TEST(TablesTest, LetterStemsThroughTheTextAreNoColumnRules) {
  std::vector<TextLine> lines = SpacedTable(100, 40, 5);
  cv::Mat page = WhitePage(800, 400);
  for (int y : {90, 130, 170, 210, 250, 290}) {
    cv::line(page, {40, y}, {720, y}, cv::Scalar(60, 60, 60), 1);
  }
  for (int x : {40, 250, 420, 600, 720}) {
    cv::line(page, {x, 90}, {x, 290}, cv::Scalar(60, 60, 60), 1);
  }
  DrawText(page, lines);
  for (int x : {80, 110}) {  // through "Item 1" to "Item 4", as stems that line up would
    cv::line(page, {x, 138}, {x, 282}, cv::Scalar(60, 60, 60), 1);
  }
  const std::vector<Block> blocks = Layout(lines, page);
  const Block* table = OnlyTable(blocks);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->table.row_count, 5);
  EXPECT_EQ(table->table.col_count, 4);
}

// A group heading inside an unruled table ("Projected" between the actual and the projected
// years), a blank line above it: the rows under it, lined up with those above, are the same table.
TEST(TablesTest, AGroupHeadingAfterABlankLineContinuesTheTable) {
  std::vector<TextLine> lines = UnruledTable(100);        // a header and 4 rows, 35 px apart
  lines.push_back(Line("Projected", 50, 310, 140, 330));  // 50 px (2.5 h) under the last row
  for (int r = 0; r < 3; ++r) {
    const float y = 345.0F + 35.0F * static_cast<float>(r);
    lines.push_back(Line("Year " + std::to_string(r), 50, y, 150, y + 20));
    lines.push_back(Line(std::to_string(20 + r), 320, y, 350, y + 20));
    lines.push_back(Line(std::to_string(r) + ".75", 470, y, 520, y + 20));
    lines.push_back(Line("Oslo", 650, y, 700, y + 20));
  }
  const std::vector<Block> blocks = AnalyzeLayout(lines);
  const Block* table = OnlyTable(blocks);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->table.row_count, 9);
  EXPECT_EQ(table->table.col_count, 4);
}

// A group heading as wide as a line of prose (17.5 h), a blank line above it, over the label
// column only: the table goes on under it. (A line of prose over several cells ends a table:
// AParagraphBetweenTwoTablesSeparatesThem.)
TEST(TablesTest, AWideGroupHeadingOverTheLabelColumnContinuesTheTable) {
  std::vector<TextLine> lines;
  const auto row = [&lines](const std::string& label, float y) {
    lines.push_back(Line(label, 50, y, 200, y + 20));
    for (int c = 0; c < 3; ++c) {
      const float x = 450.0F + 150.0F * static_cast<float>(c);
      lines.push_back(Line(std::to_string(c) + ".5", x, y, x + 50, y + 20));
    }
  };
  for (int r = 0; r < 3; ++r) {
    row("Enrollment " + std::to_string(r), 100.0F + 30.0F * static_cast<float>(r));
  }
  lines.push_back(Line("Postsecondary degree-granting institutions", 50, 220, 400, 240));
  for (int r = 0; r < 3; ++r) {
    row("Total " + std::to_string(r), 255.0F + 30.0F * static_cast<float>(r));
  }
  const std::vector<Block> blocks = AnalyzeLayout(lines);
  const Block* table = OnlyTable(blocks);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->table.row_count, 7);
  EXPECT_EQ(table->table.col_count, 4);
}

// The layout of `lines` holds one table, UnruledTable's own: 5 rows, 4 columns, its 20 lines.
void ExpectOnlyUnruledTable(const std::vector<TextLine>& lines) {
  const std::vector<Block> blocks = AnalyzeLayout(lines);
  const Block* table = OnlyTable(blocks);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->table.row_count, 5);
  EXPECT_EQ(table->table.col_count, 4);
  EXPECT_EQ(table->table.lines.size(), 20U);
}

// Two columns of text right under a table, as close as its rows: each of their lines lies across
// several of the table's cells, as no cell does; they are paragraphs, not more rows.
TEST(TablesTest, TwoColumnsOfTextUnderATableAreNotItsRows) {
  std::vector<TextLine> lines = UnruledTable(100);  // its last row ends at 260
  for (int r = 0; r < 6; ++r) {
    const float y = 285.0F + 24.0F * static_cast<float>(r);
    lines.push_back(
        Line("the left column of text goes on " + std::to_string(r), 50, y, 380, y + 20));
    lines.push_back(
        Line("and the right one beside it too " + std::to_string(r), 420, y, 750, y + 20));
  }
  ExpectOnlyUnruledTable(lines);
}

// A table's notes set right under it, as close as a wrapped cell's next line, are prose across
// its cells, not the last cell's wrapped lines (ICDAR 2013's us-017: a pixel closer, its notes
// joined the table and no table was left).
TEST(TablesTest, NotesSetTightUnderATableAreNotItsRows) {
  std::vector<TextLine> lines = UnruledTable(100);  // its last row ends at 260
  for (int r = 0; r < 4; ++r) {
    const float y = 263.0F + 22.0F * static_cast<float>(r);
    lines.push_back(Line("Note " + std::to_string(r) + ": figures are rounded to thousands", 50, y,
                         750, y + 20));
  }
  ExpectOnlyUnruledTable(lines);
}

// The same under a label the detector broke in two at a word space: its two boxes are one cell.
TEST(TablesTest, AWideGroupHeadingUnderALabelInTwoBoxesContinuesTheTable) {
  std::vector<TextLine> lines;
  const auto numbers = [&lines](float y) {
    for (int c = 0; c < 3; ++c) {
      const float x = 500.0F + 150.0F * static_cast<float>(c);
      lines.push_back(Line(std::to_string(c) + ".5", x, y, x + 50, y + 20));
    }
  };
  for (int r = 0; r < 3; ++r) {
    const float y = 100.0F + 30.0F * static_cast<float>(r);
    lines.push_back(Line("Enrollment " + std::to_string(r), 50, y, 200, y + 20));
    numbers(y);
  }
  lines.push_back(Line("Current expenditures per pupil", 50, 190, 330, 210));
  lines.push_back(Line("in fall enrollment", 333, 190, 440, 210));
  numbers(190);
  lines.push_back(Line("Postsecondary degree-granting institutions", 50, 220, 400, 240));
  for (int r = 0; r < 3; ++r) {
    const float y = 250.0F + 30.0F * static_cast<float>(r);
    lines.push_back(Line("Total " + std::to_string(r), 50, y, 200, y + 20));
    numbers(y);
  }
  const std::vector<Block> blocks = AnalyzeLayout(lines);
  const Block* table = OnlyTable(blocks);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->table.row_count, 8);
  EXPECT_EQ(table->table.col_count, 4);
}

// Rows more than a line apart (wide padding, or the tight boxes of a PDF's text layer) are one
// table when they line up cell for cell.
TEST(TablesTest, LooselySetRowsThatLineUpAreOneTable) {
  const std::vector<TextLine> lines = SpacedTable(100, 64, 5);  // 44 px (2.2 h) between rows
  const std::vector<Block> blocks = AnalyzeLayout(lines);
  const Block* table = OnlyTable(blocks);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->table.row_count, 5);
  EXPECT_EQ(table->table.col_count, 4);
}

// The tight boxes of a PDF's text layer: rows 2 h apart, a wrapped cell's next line 1 h under it,
// closer than the rows are to each other: one row.
TEST(TablesTest, WrappedCellOfALooselySetTableStaysOneRow) {
  std::vector<TextLine> lines = SpacedTable(100, 60, 4);
  for (TextLine& line : lines) {
    if (line.box[0].y >= 220) {
      for (Point& p : line.box) {
        p.y += 40;
      }
    }
  }
  lines.push_back(Line("second line", 50, 200, 160, 220));  // 20 px (1 h) under "Item 1"
  const std::vector<Block> blocks = AnalyzeLayout(lines);
  const Block* table = OnlyTable(blocks);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->table.row_count, 4);
  EXPECT_EQ(table->table.cells[4].rows, (TextRows{{4}, {16}}));
}

// Two fields above a loosely set table (a receipt's number and cashier) line up with its cells in
// three places, the wide one with two cells at once: they are no row of the table.
TEST(TablesTest, FieldsAboveALooselySetTableAreNoRowOfIt) {
  std::vector<TextLine> lines = SpacedTable(200, 60, 4);
  lines.push_back(Line("No. 80336635", 50, 140, 250, 160));
  lines.push_back(Line("Cashier: Ann Lee", 320, 140, 700, 160));  // 40 px (2 h) above the table
  const std::vector<Block> blocks = AnalyzeLayout(lines);
  const Block* table = OnlyTable(blocks);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->table.row_count, 4);
  EXPECT_THAT(table->table.lines, ::testing::Not(::testing::Contains(16)));
}

// A paragraph between two tables ends the first: two tables, the paragraph in neither.
TEST(TablesTest, AParagraphBetweenTwoTablesSeparatesThem) {
  std::vector<TextLine> lines = SpacedTable(100, 36, 4);
  lines.push_back(Line("A paragraph that runs across the width of the page", 50, 250, 700, 270));
  for (int r = 0; r < 4; ++r) {
    const float y = 286.0F + 36.0F * static_cast<float>(r);
    lines.push_back(Line("Code " + std::to_string(r), 50, y, 130, y + 20));
    lines.push_back(Line("Region", 240, y, 320, y + 20));
    lines.push_back(Line("20" + std::to_string(r), 560, y, 600, y + 20));
  }
  std::vector<const Block*> tables;
  const std::vector<Block> blocks = AnalyzeLayout(lines);
  for (const Block& b : blocks) {
    if (b.type == BlockType::kTable) {
      tables.push_back(&b);
    }
  }
  ASSERT_THAT(tables, SizeIs(2));
  EXPECT_EQ(tables[0]->table.col_count, 4);
  EXPECT_EQ(tables[1]->table.col_count, 3);
  for (const Block* t : tables) {
    EXPECT_EQ(t->table.row_count, 4);
    EXPECT_THAT(t->table.lines, ::testing::Not(::testing::Contains(16)));
  }
}

// A text column beside a table keeps its own leading: it is no column of the table.
TEST(TablesTest, ProseBesideATableIsNoColumnOfIt) {
  std::vector<TextLine> lines;
  for (int r = 0; r < 8; ++r) {
    const float y = 100.0F + 26.0F * static_cast<float>(r);
    lines.push_back(Line("words of a running text beside the table", 50, y, 650, y + 20));
  }
  for (int r = 0; r < 5; ++r) {
    const float y = 100.0F + 40.0F * static_cast<float>(r);
    lines.push_back(Line(r == 0 ? "Name" : "Ann", 720, y, 780, y + 20));
    lines.push_back(Line(r == 0 ? "Qty" : "12", 830, y, 880, y + 20));
    lines.push_back(Line(r == 0 ? "Date" : "2024-05-0" + std::to_string(r), 930, y, 1030, y + 20));
  }
  const std::vector<Block> blocks = AnalyzeLayout(lines);
  const Block* table = OnlyTable(blocks);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->table.row_count, 5);
  EXPECT_EQ(table->table.col_count, 3);
  for (std::size_t index : table->table.lines) {
    EXPECT_GE(index, 8U);
  }
}

// A text column beside a zebra table, its lines in step with the table's rows: the stripes run
// under the table and stop short of the text, which is no column of the table.
TEST(TablesTest, ProseBesideAStripedTableIsNoColumnOfIt) {
  std::vector<TextLine> lines;
  for (int r = 0; r < 5; ++r) {
    const float y = 100.0F + 40.0F * static_cast<float>(r);
    lines.push_back(Line("words of a running text beside the table", 50, y, 650, y + 20));
    lines.push_back(Line(r == 0 ? "Name" : "Ann", 720, y, 780, y + 20));
    lines.push_back(Line(r == 0 ? "Qty" : "12", 830, y, 880, y + 20));
    lines.push_back(Line(r == 0 ? "Date" : "2024-05-0" + std::to_string(r), 930, y, 1030, y + 20));
  }
  cv::Mat page = WhitePage(1100, 400);
  DrawStripes(page, 710, 1040, {130, 210});
  DrawText(page, lines);
  const std::vector<Block> blocks = Layout(lines, page);
  const Block* table = OnlyTable(blocks);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->table.row_count, 5);
  EXPECT_EQ(table->table.col_count, 3);
  for (std::size_t index : table->table.lines) {
    EXPECT_NE(index % 4, 0U);
  }
}

// A grid under a dark header row: the header's rules are hidden under its fill and its light
// letters are no rules, so the header keeps the grid's three columns.
TEST(TablesTest, DarkHeaderRowOverAGrid) {
  cv::Mat page = WhitePage(700, 300);
  cv::rectangle(page, cv::Point(50, 100), cv::Point(650, 140), cv::Scalar(50, 50, 50), cv::FILLED);
  for (int y : {140, 180, 220}) {
    cv::line(page, {50, y}, {650, y}, cv::Scalar(0, 0, 0), 1);
  }
  for (int x : {50, 250, 450, 650}) {
    cv::line(page, {x, 140}, {x, 220}, cv::Scalar(0, 0, 0), 1);
  }
  const std::vector<TextLine> header = {Line("Item", 60, 110, 120, 130),
                                        Line("Qty", 260, 110, 300, 130),
                                        Line("Price", 460, 110, 520, 130)};
  for (const TextLine& line : header) {  // light letters
    for (float x = line.box[0].x + 2; x + 6 < line.box[2].x; x += 9) {
      cv::rectangle(page, cv::Point2f(x, 112), cv::Point2f(x + 4, 128), cv::Scalar(250, 250, 250),
                    cv::FILLED);
    }
  }
  std::vector<TextLine> lines = header;
  for (int r = 0; r < 2; ++r) {
    const float y = 150.0F + 40.0F * static_cast<float>(r);
    lines.push_back(Line(r == 0 ? "Apples" : "Pears", 60, y, 150, y + 20));
    lines.push_back(Line("1" + std::to_string(r), 260, y, 290, y + 20));
    lines.push_back(Line(std::to_string(r) + ".50", 460, y, 510, y + 20));
  }
  DrawText(page, {lines.begin() + 3, lines.end()});
  const std::vector<Block> blocks = Layout(lines, page);
  const Block* table = OnlyTable(blocks);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->table.row_count, 3);
  EXPECT_EQ(table->table.col_count, 3);
  ASSERT_THAT(table->table.cells, SizeIs(9));
  EXPECT_EQ(table->table.cells[1].rows, (TextRows{{1}}));  // "Qty" alone
}

TEST(TablesTest, TwoColumnFormAndProseColumnsStayParagraphs) {
  // Label/value pairs in two columns: a form, not a table (two unruled columns never are).
  std::vector<TextLine> form;
  for (int r = 0; r < 5; ++r) {
    const float y = 100.0F + 40.0F * static_cast<float>(r);
    form.push_back(Line("Order: 12345" + std::to_string(r), 50, y, 260, y + 20));
    form.push_back(Line("Phone: 555-01" + std::to_string(r), 500, y, 720, y + 20));
  }
  for (const Block& b : AnalyzeLayout(form)) {
    EXPECT_NE(b.type, BlockType::kTable);
  }
  // Three columns of prose with aligned baselines: lines far wider than cells.
  std::vector<TextLine> prose;
  for (int r = 0; r < 8; ++r) {
    const float y = 100.0F + 26.0F * static_cast<float>(r);
    for (float x : {50.0F, 400.0F, 750.0F}) {
      prose.push_back(Line("words of a running text that fill a column", x, y, x + 320, y + 20));
    }
  }
  const std::vector<Block> blocks = AnalyzeLayout(prose);
  ASSERT_THAT(blocks, SizeIs(3));
  for (const Block& b : blocks) {
    EXPECT_EQ(b.type, BlockType::kParagraph);
  }
}

TEST(TablesTest, FrameAroundAParagraphIsNoTable) {
  cv::Mat page = WhitePage(600, 300);
  cv::rectangle(page, cv::Point(40, 40), cv::Point(560, 200), cv::Scalar(0, 0, 0), 1);
  const std::vector<TextLine> lines = {Line("A boxed note", 60, 60, 240, 80),
                                       Line("with two lines", 60, 90, 260, 110),
                                       Line("and a date", 400, 90, 520, 110)};
  DrawText(page, lines);
  for (const Block& b : Layout(lines, page)) {
    EXPECT_NE(b.type, BlockType::kTable);
  }
}

TEST(LayoutTest, ListsAndHeadingLevels) {
  const std::vector<TextLine> lines = {
      Line("Title", 50, 20, 300, 70),                 // 2.5 x the body: level 1
      Line("Section", 50, 100, 250, 132),             // 1.6 x: level 2
      Line("\u2022 first point", 50, 150, 300, 170),  // bullets
      Line("- second point", 50, 175, 300, 195),
      Line("1. step one", 50, 230, 300, 250),  // numbered
      Line("2) step two", 50, 255, 300, 275),
      Line("continues here", 80, 280, 300, 300),
      Line("A closing paragraph.", 50, 340, 400, 360),
  };
  const std::vector<Block> blocks = AnalyzeLayout(lines);
  ASSERT_THAT(blocks, SizeIs(7));
  EXPECT_EQ(blocks[0].level, 1);
  EXPECT_EQ(blocks[1].level, 2);
  EXPECT_EQ(blocks[2].type, BlockType::kListItem);
  EXPECT_FALSE(blocks[2].ordered);
  EXPECT_TRUE(blocks[4].ordered);
  EXPECT_EQ(blocks[5].rows, (TextRows{{5}, {6}}));
  EXPECT_EQ(FormatMarkdown(lines, blocks),
            "# Title\n\n## Section\n\n- first point\n- second point\n\n1. step one\n"
            "2. step two continues here\n\nA closing paragraph.\n");
  EXPECT_EQ(FormatHtml(lines, blocks),
            "<h1>Title</h1>\n<h2>Section</h2>\n<ul>\n<li>first point</li>\n<li>second point</li>\n"
            "</ul>\n<ol>\n<li>step one</li>\n<li>step two<br>continues here</li>\n</ol>\n"
            "<p>A closing paragraph.</p>\n");
}

TEST(LayoutTest, ListMarkers) {
  int number = 0;
  EXPECT_EQ(ListMarker("12. twelve", &number), 4U);
  EXPECT_EQ(number, 12);
  EXPECT_EQ(ListMarker("\u2022 dot"), 4U);
  EXPECT_EQ(ListMarker("* star"), 2U);
  EXPECT_EQ(ListMarker("2016. a year"), 0U);
  EXPECT_EQ(ListMarker("1.5 litres"), 0U);
  EXPECT_EQ(ListMarker("-5 degrees"), 0U);
  EXPECT_EQ(ListMarker("- "), 0U);  // a marker with nothing after it
  EXPECT_EQ(ListMarker(""), 0U);
}

}  // namespace
}  // namespace ocr::layout
