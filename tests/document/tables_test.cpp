// Tests for document/rulings and document/tables through AnalyzeLayout: rulings found in drawn
// pages, ruled and unruled tables from hand-placed boxes, what must stay paragraphs, and the exact
// Markdown and HTML of tables and lists. Cell text lines are 20 px tall.
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include "document/layout.h"
#include "document/render.h"
#include "document/rulings.h"
#include "support/hand_lines.h"

namespace ocr::document {
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
}  // namespace ocr::document
