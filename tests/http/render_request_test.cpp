// POST /render's body read back into a document, without a server or models: an answer the server
// wrote is written again exactly as the server writes it, in every format it renders, and each
// rule an answer can break is refused with its API code and the member that breaks it.
#include "http/render_request.h"

#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "document/render.h"
#include "http/response_json.h"
#include "support/hand_lines.h"

namespace ocr::http {
namespace {

using Json = nlohmann::json;
using testing::Line;

// A heading, a paragraph of two rows (two lines on the first), a bulleted item and a 2 x 2 table
// with a header row, its blocks given by hand as layout would give them.
document::DocumentPage HandPage(int number) {
  document::DocumentPage page;
  page.page = number;
  page.width = 400;
  page.height = 300;
  page.lines = {Line("Report", 10, 10, 200, 50),
                Line("First words", 10, 70, 150, 90),
                Line("same row", 160, 70, 300, 90),
                Line("second row", 10, 95, 150, 115),
                Line("\u2022 item one", 10, 130, 200, 150),
                Line("Name", 10, 170, 80, 190),
                Line("Qty", 100, 170, 150, 190),
                Line("Apples, red", 10, 195, 80, 215),
                Line("12", 100, 195, 150, 215)};
  layout::Block heading;
  heading.type = layout::BlockType::kHeading;
  heading.level = 1;
  heading.rows = {{0}};
  layout::Block paragraph;
  paragraph.rows = {{1, 2}, {3}};
  layout::Block item;
  item.type = layout::BlockType::kListItem;
  item.rows = {{4}};
  layout::Block table;
  table.type = layout::BlockType::kTable;
  table.table.row_count = 2;
  table.table.col_count = 2;
  table.table.header_rows = 1;
  for (int i = 0; i < 4; ++i)
    table.table.cells.push_back({i / 2, i % 2, 1, 1, {{static_cast<std::size_t>(5 + i)}}});
  table.table.lines = {5, 6, 7, 8};
  page.blocks = {heading, paragraph, item, table};
  return page;
}

document::DocumentResult HandDocument() {
  document::DocumentResult doc;
  doc.page_count = 3;
  doc.pages = {HandPage(0), HandPage(2)};
  return doc;
}

// The multipart form's answer of `doc`, as the server writes its pages.
Json AnswerOf(const document::DocumentResult& doc) {
  Json pages = Json::array();
  for (const document::DocumentPage& page : doc.pages)
    pages.push_back(PageJson(page));
  return {{"success", true}, {"format", "json"}, {"pages", pages}};
}

RenderCall Parsed(const Json& body) {
  ParsedRender parsed = ParseRenderRequest(body.dump());
  if (const BadRequest* bad = std::get_if<BadRequest>(&parsed)) {
    ADD_FAILURE() << bad->code << ": " << bad->message;
    return {};
  }
  return std::get<RenderCall>(std::move(parsed));
}

BadRequest ErrorOf(std::string_view body) {
  ParsedRender parsed = ParseRenderRequest(body);
  if (const BadRequest* bad = std::get_if<BadRequest>(&parsed))
    return *bad;
  ADD_FAILURE() << "parsed without an error: " << body;
  return {};
}

TEST(RenderRequestTest, AnAnswerIsWrittenAgainAsTheServerWritesItsDocument) {
  const document::DocumentResult doc = HandDocument();
  const Json answer = AnswerOf(doc);
  for (const char* name : {"text", "markdown", "html", "csv"}) {
    for (const bool paginate : {false, true}) {
      SCOPED_TRACE(std::string(name) + (paginate ? " paginated" : ""));
      const RenderCall call =
          Parsed({{"answer", answer}, {"output_format", name}, {"paginate_output", paginate}});
      const document::OutputFormat format = *document::ParseOutputFormat(name);
      EXPECT_EQ(call.shape.format, format);
      EXPECT_EQ(call.shape.paginate, paginate);
      EXPECT_EQ(document::FormatDocument(call.document, format, paginate),
                document::FormatDocument(doc, format, paginate));
    }
  }
  // What the writers make of it, spelled out: the paragraph's two rows, the table's quoted cell.
  const RenderCall markdown = Parsed({{"answer", answer}, {"output_format", "markdown"}});
  EXPECT_EQ(markdown.document.pages.at(1).page, 2);
  EXPECT_EQ(markdown.document.pages[0].blocks.at(1).rows, (layout::TextRows{{1, 2}, {3}}));
  const RenderCall csv = Parsed({{"answer", answer}, {"output_format", "csv"}});
  EXPECT_EQ(document::FormatDocument(csv.document, document::OutputFormat::kCsv, false),
            "Name,Qty\r\n\"Apples, red\",12\r\n\r\nName,Qty\r\n\"Apples, red\",12\r\n");
}

TEST(RenderRequestTest, TheJsonFormsAnswerIsLaidOutAsPostOcrLaysOutItsLines) {
  const document::DocumentPage page = HandPage(0);
  const Json answer = {{"processing_time", 0.5}, {"results", LinesToJson(page.lines)}};
  const RenderCall call = Parsed({{"answer", answer}, {"output_format", "markdown"}});
  ASSERT_EQ(call.document.pages.size(), 1u);
  EXPECT_TRUE(call.document.pages[0].blocks.empty());
  EXPECT_EQ(document::FormatDocument(call.document, document::OutputFormat::kMarkdown, false),
            document::FormatMarkdown(page.lines));
}

TEST(RenderRequestTest, CellsInAnyOrderAreWalkedRowMajor) {
  Json answer = AnswerOf(HandDocument());
  Json& cells = answer["pages"][0]["blocks"][3]["cells"];
  std::swap(cells[0], cells[3]);
  const RenderCall call = Parsed({{"answer", answer}, {"output_format", "csv"}});
  EXPECT_EQ(document::FormatPage(document::OutputFormat::kCsv, call.document.pages[0]),
            "Name,Qty\r\n\"Apples, red\",12\r\n");
}

TEST(RenderRequestTest, EachBrokenRuleIsNamedWithItsMember) {
  const Json good = AnswerOf(HandDocument());
  const auto with = [&good](const std::string& pointer, const Json& value) {
    Json answer = good;
    answer[Json::json_pointer(pointer)] = value;
    return Json{{"answer", answer}, {"output_format", "markdown"}}.dump();
  };
  const auto without = [&good](const std::string& parent, const std::string& key) {
    Json answer = good;
    answer[Json::json_pointer(parent)].erase(key);
    return Json{{"answer", answer}, {"output_format", "markdown"}}.dump();
  };

  struct Case {
    std::string body;
    std::string code;
    std::string message;  // a part of it
  };

  const std::vector<Case> cases = {
      {"{\"answer\": ", "invalid_json", "must be a JSON object"},
      {"[]", "invalid_json", "must be a JSON object"},
      {Json{{"answer", good}}.dump(), "missing_field", "\"output_format\" is required"},
      {Json{{"answer", good}, {"output_format", 3}}.dump(), "invalid_option", "must be a string"},
      {Json{{"answer", good}, {"output_format", "hocr"}}.dump(), "invalid_option", "ask POST /ocr"},
      {Json{{"answer", good}, {"output_format", "json"}}.dump(), "invalid_option", "got 'json'"},
      {Json{{"answer", good}, {"output_format", "docx"}}.dump(), "invalid_option", "got 'docx'"},
      {Json{{"answer", good}, {"output_format", "text"}, {"paginate_output", "yes"}}.dump(),
       "invalid_option", "\"paginate_output\" must be true or false"},
      {Json{{"output_format", "text"}}.dump(), "missing_field", "\"answer\" is required"},
      {Json{{"answer", 5}, {"output_format", "text"}}.dump(), "invalid_option",
       "answer must be an object"},
      {Json{{"answer", Json::object()}, {"output_format", "text"}}.dump(), "invalid_option",
       "answer.results is missing"},
      {with("/pages", 1), "invalid_option", "answer.pages must be an array"},
      {without("/pages/0/results/2", "text"), "invalid_option",
       "answer.pages[0].results[2].text is missing"},
      {with("/pages/0/results/2/text", 7), "invalid_option", "results[2].text must be a string"},
      {with("/pages/0/results/1/bounding_box", Json::array({Json::array({1, 2})})),
       "invalid_option", "results[1].bounding_box must be 4 [x, y] points"},
      {with("/pages/0/results/1/bounding_box/3/1", 1e39), "invalid_option",
       "bounding_box[3][1] must be a finite number"},
      {with("/pages/0/results/1/bounding_box/0", Json::array({1, 2, 3})), "invalid_option",
       "bounding_box[0] must be an [x, y] point"},
      {with("/pages/1/page", -1), "invalid_option", "answer.pages[1].page must be a whole number"},
      {with("/pages/0/blocks/1/type", "figure"), "invalid_option",
       "blocks[1].type must be one of paragraph, heading, list_item, table"},
      {with("/pages/0/blocks/1/lines/0", 9), "invalid_option",
       "blocks[1].lines[0] must be a whole number from 0 to 8"},
      {with("/pages/0/blocks/1/lines/0", 0), "invalid_option",
       "blocks[1].lines[0] lists line 0 a second time on its page"},
      {with("/pages/0/blocks/0/level", 7), "invalid_option", "blocks[0].level must be"},
      {with("/pages/0/blocks/2/ordered", 1), "invalid_option",
       "blocks[2].ordered must be true or false"},
      {with("/pages/0/blocks/3/cells/3/col", 2), "invalid_option",
       "blocks[3].cells[3].col must be a whole number from 0 to 1"},
      {with("/pages/0/blocks/3/cells/0/col_span", 2), "invalid_option",
       "blocks[3].cells[1] covers row 0, column 1, which another cell covers"},
      {with("/pages/0/blocks/3/columns", 30000), "invalid_option",
       "blocks[3].columns must be a whole number from 1 to 20000"},
      {with("/pages/0/blocks/3/header_rows", 3), "invalid_option",
       "blocks[3].header_rows must be a whole number from 0 to 2"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body.substr(0, 120));
    const BadRequest bad = ErrorOf(c.body);
    EXPECT_EQ(bad.code, c.code);
    EXPECT_NE(bad.message.find(c.message), std::string::npos) << bad.message;
  }
}

TEST(RenderRequestTest, TablesAreBoundedPerTableAndPerAnswer) {
  Json answer = AnswerOf(HandDocument());
  Json& table = answer["pages"][0]["blocks"][3];
  table["rows"] = 200;
  table["columns"] = 200;  // 40,000 positions: more than a page's table can hold
  EXPECT_NE(ErrorOf(Json{{"answer", answer}, {"output_format", "csv"}}.dump())
                .message.find("blocks[3] has more than 20000 grid positions"),
            std::string::npos);

  // Fifty-one tables of 20,000 empty positions each: a small body, a million and more cells.
  Json big = {{"type", "table"}, {"rows", 100}, {"columns", 200}, {"cells", Json::array()}};
  Json page = {{"results", Json::array()}, {"blocks", Json::array()}};
  for (int i = 0; i < 51; ++i)
    page["blocks"].push_back(big);
  const BadRequest bad =
      ErrorOf(Json{{"answer", {{"pages", {page}}}}, {"output_format", "csv"}}.dump());
  EXPECT_EQ(bad.code, "invalid_option");
  EXPECT_NE(bad.message.find("answer.pages[0].blocks[50] brings the answer's tables past 1000000"),
            std::string::npos)
      << bad.message;
}

}  // namespace
}  // namespace ocr::http
