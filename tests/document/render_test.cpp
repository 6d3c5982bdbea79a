// Tests for document/render: text, Markdown and HTML written from hand-built lines (escaping,
// pagination as marker writes it, whole HTML documents) and the output format's names.
#include "document/render.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "document/document.h"
#include "support/hand_lines.h"
#include "support/status_matchers.h"

namespace ocr::document {
namespace {

using pipeline::TextLine;
using testing::Line;

// A body line (x 50..450, 20 px tall) whose top is at `top`.
TextLine Left(std::string text, float top) {
  return Line(std::move(text), 50, top, 450, top + 20);
}

TEST(RenderTest, FormatTextIsOneLinePerInputLineInOrder) {
  const std::vector<TextLine> lines = {Left("second", 130), Left("first <b>", 100),
                                       Left("broken\nline", 160)};
  EXPECT_EQ(FormatText(lines), "second\nfirst <b>\nbroken line\n");
}

TEST(RenderTest, MarkdownEscapesMetacharacters) {
  const std::vector<TextLine> heading_like = {Left("# not a heading *x*", 100)};
  EXPECT_EQ(FormatMarkdown(heading_like), "\\# not a heading \\*x\\*\n");

  const std::vector<TextLine> every = {Left(R"(\`*_{}[]<>#+-|!~& a.b)", 100)};
  EXPECT_EQ(FormatMarkdown(every), R"(\\\`\*\_\{\}\[\]\<\>\#\+\-\|\!\~\& a.b)"
                                   "\n");

  // A year or a decimal at the start of a block is no list number: what could read as one is
  // escaped; other digits and dots stay as they are.
  const std::vector<TextLine> list_like = {Left("2016. was a year", 100), Left("costs 2.50", 130),
                                           Left("1.5 litres", 190)};
  EXPECT_EQ(FormatMarkdown(list_like), "2016\\. was a year costs 2.50\n\n1\\.5 litres\n");
}

TEST(RenderTest, HtmlEscapesText) {
  const std::vector<TextLine> lines = {Left("<b>&", 100), Left(R"(say "hi" it's)", 130)};
  EXPECT_EQ(FormatHtml(lines), "<p>&lt;b&gt;&amp;<br>say &quot;hi&quot; it&#39;s</p>\n");
}

TEST(RenderTest, ParseOutputFormatIsCaseInsensitive) {
  const Result<OutputFormat> markdown = ParseOutputFormat("Markdown");
  ASSERT_OK(markdown);
  EXPECT_EQ(*markdown, OutputFormat::kMarkdown);
  for (OutputFormat format :
       {OutputFormat::kJson, OutputFormat::kText, OutputFormat::kMarkdown, OutputFormat::kHtml}) {
    const Result<OutputFormat> parsed = ParseOutputFormat(OutputFormatName(format));
    ASSERT_OK(parsed);
    EXPECT_EQ(*parsed, format);
  }
  EXPECT_EQ(OutputFormatName(OutputFormat::kJson), "json");
  EXPECT_EQ(OutputFormatName(OutputFormat::kText), "text");
  EXPECT_EQ(OutputFormatName(OutputFormat::kMarkdown), "markdown");
  EXPECT_EQ(OutputFormatName(OutputFormat::kHtml), "html");
  ASSERT_OK(ParseOutputFormat("JSON"));
  ASSERT_OK(ParseOutputFormat("hTmL"));
}

TEST(RenderTest, ParseOutputFormatRejectsOthers) {
  const Result<OutputFormat> docx = ParseOutputFormat("docx");
  ASSERT_FALSE(docx.ok());
  EXPECT_EQ(docx.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(
      docx.status().message(),
      "output_format must be one of json, markdown, html, text, hocr, alto, pdf, csv (got 'docx')");
  EXPECT_FALSE(ParseOutputFormat("").ok());
  EXPECT_FALSE(ParseOutputFormat("markdown ").ok());

  // The echoed value is printable ASCII and bounded, whatever the client sent.
  const Result<OutputFormat> odd = ParseOutputFormat("m\xc3\xa9\n" + std::string(40, 'x'));
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(
      odd.status().message(),
      "output_format must be one of json, markdown, html, text, hocr, alto, pdf, csv (got 'm???" +
          std::string(28, 'x') + "...')");
}

// Pagination byte for byte as marker's server writes it, including a page with no text at the end
// (marker keeps its rule and a blank line after it).
TEST(RenderTest, PaginatedOutputIsMarkersText) {
  DocumentResult doc;
  doc.page_count = 3;
  doc.pages.resize(3);
  for (int i = 0; i < 3; ++i)
    doc.pages[i].page = i;
  doc.pages[0].lines = {Line("Title", 10, 10, 200, 30), Line("body *x*", 10, 50, 200, 70)};
  doc.pages[1].lines = {Line("two", 10, 10, 200, 30)};
  const std::string rule(48, '-');
  EXPECT_EQ(
      FormatDocument(doc, OutputFormat::kText, true),
      "\n\n{0}" + rule + "\n\nTitle\nbody *x*\n\n{1}" + rule + "\n\ntwo\n\n{2}" + rule + "\n\n");
  const std::string md = FormatDocument(doc, OutputFormat::kMarkdown, true);
  EXPECT_EQ(md.rfind("\n\n{0}" + rule + "\n\n", 0), 0u) << md;
  EXPECT_EQ(md.find("\n\n\n"), std::string::npos) << md;
  EXPECT_TRUE(md.ends_with("\n\n{2}" + rule + "\n\n")) << md;
  EXPECT_EQ(FormatDocument(DocumentResult{}, OutputFormat::kText, true), "\n\n");
}

TEST(RenderTest, HtmlIsAWholeDocument) {
  DocumentResult doc;
  doc.pages.resize(2);
  doc.pages[1].page = 1;
  doc.pages[0].lines = {Line("<a>", 10, 10, 200, 30)};
  const std::string head =
      "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n</head>\n<body>\n";
  EXPECT_EQ(FormatDocument(doc, OutputFormat::kHtml, false),
            head + "<p>&lt;a&gt;</p>\n</body>\n</html>\n");
  EXPECT_EQ(FormatDocument(doc, OutputFormat::kHtml, true),
            head +
                "<div class='page' data-page-id='0'>\n<p>&lt;a&gt;</p>\n</div>\n"
                "<div class='page' data-page-id='1'>\n</div>\n</body>\n</html>\n");
}

}  // namespace
}  // namespace ocr::document
