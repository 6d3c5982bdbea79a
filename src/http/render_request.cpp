#include "http/render_request.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "common/text.h"
#include "layout/layout.h"
#include "layout/line_geometry.h"

namespace ocr::http {
namespace {

using Json = nlohmann::json;

// Each rule's message names the member that breaks it: "answer.pages[0].results[3].text ...".
Status Broken(const std::string& where, std::string_view rule) {
  return InvalidArgument(where + " " + std::string(rule));
}

std::string At(const std::string& where, std::size_t index) {
  return where + "[" + std::to_string(index) + "]";
}

const Json* Optional(const Json& object, const char* name) {
  const auto it = object.find(name);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

Result<const Json*> Member(const Json& object, const char* name, const std::string& where) {
  const Json* value = Optional(object, name);
  if (value == nullptr)
    return Broken(where + "." + name, "is missing");
  return value;
}

Status Expect(bool holds, const std::string& where, std::string_view rule) {
  return holds ? Status::Ok() : Broken(where, rule);
}

Result<int> WholeNumber(const Json& value, int lo, int hi, const std::string& where) {
  std::int64_t v = 0;
  bool fits = false;
  if (value.is_number_unsigned()) {
    fits = value.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT_MAX);
    v = fits ? static_cast<std::int64_t>(value.get<std::uint64_t>()) : 0;
  } else if (value.is_number_integer()) {
    v = value.get<std::int64_t>();
    fits = true;
  }
  if (!fits || v < lo || v > hi)
    return Broken(
        where, "must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
  return static_cast<int>(v);
}

// A number that fits a float (converting a larger double to float is undefined behaviour).
Result<float> Coordinate(const Json& value, const std::string& where) {
  const bool fits = value.is_number() && std::isfinite(value.get<double>()) &&
                    std::fabs(value.get<double>()) <= std::numeric_limits<float>::max();
  if (!fits)
    return Broken(where, "must be a finite number");
  return static_cast<float>(value.get<double>());
}

Result<pipeline::Quad> Box(const Json& value, const std::string& where) {
  OCR_RETURN_IF_ERROR(
      Expect(value.is_array() && value.size() == 4, where, "must be 4 [x, y] points"));
  pipeline::Quad quad;
  for (std::size_t i = 0; i < 4; ++i) {
    const std::string at = At(where, i);
    OCR_RETURN_IF_ERROR(
        Expect(value[i].is_array() && value[i].size() == 2, at, "must be an [x, y] point"));
    OCR_ASSIGN_OR_RETURN(quad[i].x, Coordinate(value[i][0], At(at, 0)));
    OCR_ASSIGN_OR_RETURN(quad[i].y, Coordinate(value[i][1], At(at, 1)));
  }
  return quad;
}

Result<pipeline::TextLine> Line(const Json& item, const std::string& where) {
  OCR_RETURN_IF_ERROR(Expect(item.is_object(), where, "must be an object"));
  pipeline::TextLine line;
  OCR_ASSIGN_OR_RETURN(const Json* text, Member(item, "text", where));
  OCR_RETURN_IF_ERROR(Expect(text->is_string(), where + ".text", "must be a string"));
  line.text = text->get<std::string>();
  if (const Json* confidence = Optional(item, "confidence")) {
    OCR_ASSIGN_OR_RETURN(line.confidence, Coordinate(*confidence, where + ".confidence"));
  }
  OCR_ASSIGN_OR_RETURN(const Json* box, Member(item, "bounding_box", where));
  OCR_ASSIGN_OR_RETURN(line.box, Box(*box, where + ".bounding_box"));
  return line;
}

Result<std::vector<pipeline::TextLine>> Lines(const Json& results, const std::string& where) {
  OCR_RETURN_IF_ERROR(Expect(results.is_array(), where, "must be an array"));
  std::vector<pipeline::TextLine> lines;
  lines.reserve(results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    OCR_ASSIGN_OR_RETURN(pipeline::TextLine line, Line(results[i], At(where, i)));
    lines.push_back(std::move(line));
  }
  return lines;
}

// Reads one page's blocks, which index its lines: each line once at most on the page.
class BlockReader {
 public:
  BlockReader(const std::vector<pipeline::TextLine>& lines, std::size_t& table_cells)
      : lines_(lines), used_(lines.size(), false), table_cells_(table_cells) {}

  Result<layout::Block> Read(const Json& item, const std::string& where) {
    OCR_RETURN_IF_ERROR(Expect(item.is_object(), where, "must be an object"));
    layout::Block block;
    OCR_ASSIGN_OR_RETURN(const Json* type, Member(item, "type", where));
    OCR_ASSIGN_OR_RETURN(block.type, Type(*type, where + ".type"));
    OCR_RETURN_IF_ERROR(Bounds(item, where, block));
    if (block.type == layout::BlockType::kTable) {
      OCR_ASSIGN_OR_RETURN(block.table, Table(item, where));
      block.table.left = block.left;
      block.table.top = block.top;
      block.table.right = block.right;
      block.table.bottom = block.bottom;
      return block;
    }
    OCR_ASSIGN_OR_RETURN(const Json* lines, Member(item, "lines", where));
    OCR_ASSIGN_OR_RETURN(block.rows, Rows(*lines, where + ".lines"));
    if (block.type == layout::BlockType::kHeading) {
      const Json* level = Optional(item, "level");
      block.level = 1;
      if (level != nullptr) {
        OCR_ASSIGN_OR_RETURN(block.level, WholeNumber(*level, 1, 6, where + ".level"));
      }
    }
    if (block.type == layout::BlockType::kListItem) {
      const Json* ordered = Optional(item, "ordered");
      OCR_RETURN_IF_ERROR(Expect(ordered == nullptr || ordered->is_boolean(), where + ".ordered",
                                 "must be true or false"));
      block.ordered = ordered != nullptr && ordered->get<bool>();
    }
    return block;
  }

 private:
  static Result<layout::BlockType> Type(const Json& type, const std::string& where) {
    for (const layout::BlockType t : {layout::BlockType::kParagraph, layout::BlockType::kHeading,
                                      layout::BlockType::kListItem, layout::BlockType::kTable}) {
      if (type.is_string() && type.get_ref<const std::string&>() == layout::BlockTypeName(t))
        return t;
    }
    return Broken(where, "must be one of paragraph, heading, list_item, table");
  }

  static Status Bounds(const Json& item, const std::string& where, layout::Block& block) {
    const Json* bbox = Optional(item, "bbox");
    if (bbox == nullptr)
      return Status::Ok();
    const std::string at = where + ".bbox";
    OCR_RETURN_IF_ERROR(
        Expect(bbox->is_array() && bbox->size() == 4, at, "must be [left, top, right, bottom]"));
    OCR_ASSIGN_OR_RETURN(block.left, Coordinate((*bbox)[0], At(at, 0)));
    OCR_ASSIGN_OR_RETURN(block.top, Coordinate((*bbox)[1], At(at, 1)));
    OCR_ASSIGN_OR_RETURN(block.right, Coordinate((*bbox)[2], At(at, 2)));
    OCR_ASSIGN_OR_RETURN(block.bottom, Coordinate((*bbox)[3], At(at, 3)));
    return Status::Ok();
  }

  // Line indices, in reading order, as rows found again from their boxes.
  Result<layout::TextRows> Rows(const Json& value, const std::string& where) {
    OCR_RETURN_IF_ERROR(Expect(value.is_array(), where, "must be an array"));
    std::vector<std::size_t> order;
    order.reserve(value.size());
    const int last = static_cast<int>(std::min<std::size_t>(lines_.size(), INT_MAX)) - 1;
    for (std::size_t i = 0; i < value.size(); ++i) {
      const std::string at = At(where, i);
      OCR_RETURN_IF_ERROR(Expect(last >= 0, at, "indexes a page with no results"));
      OCR_ASSIGN_OR_RETURN(const int index, WholeNumber(value[i], 0, last, at));
      const auto line = static_cast<std::size_t>(index);
      OCR_RETURN_IF_ERROR(Expect(
          !used_[line], at, "lists line " + std::to_string(line) + " a second time on its page"));
      used_[line] = true;
      order.push_back(line);
    }
    return layout::RowsInReadingOrder(lines_, order);
  }

  Result<layout::Table> Table(const Json& item, const std::string& where) {
    constexpr int kMax = static_cast<int>(layout::kMaxTableCells);
    layout::Table table;
    OCR_ASSIGN_OR_RETURN(const Json* rows, Member(item, "rows", where));
    OCR_ASSIGN_OR_RETURN(table.row_count, WholeNumber(*rows, 1, kMax, where + ".rows"));
    OCR_ASSIGN_OR_RETURN(const Json* columns, Member(item, "columns", where));
    OCR_ASSIGN_OR_RETURN(table.col_count, WholeNumber(*columns, 1, kMax, where + ".columns"));
    const auto positions =
        static_cast<std::size_t>(table.row_count) * static_cast<std::size_t>(table.col_count);
    OCR_RETURN_IF_ERROR(Expect(positions <= layout::kMaxTableCells, where,
                               "has more than " + std::to_string(kMax) + " grid positions"));
    table_cells_ += positions;
    OCR_RETURN_IF_ERROR(Expect(table_cells_ <= kMaxRenderedTableCells, where,
                               "brings the answer's tables past " +
                                   std::to_string(kMaxRenderedTableCells) + " grid positions"));
    if (const Json* header = Optional(item, "header_rows")) {
      OCR_ASSIGN_OR_RETURN(table.header_rows,
                           WholeNumber(*header, 0, table.row_count, where + ".header_rows"));
    }
    OCR_ASSIGN_OR_RETURN(const Json* cells, Member(item, "cells", where));
    OCR_RETURN_IF_ERROR(Expect(cells->is_array(), where + ".cells", "must be an array"));
    std::vector<bool> taken(positions, false);
    for (std::size_t i = 0; i < cells->size(); ++i) {
      OCR_ASSIGN_OR_RETURN(layout::TableCell cell,
                           Cell((*cells)[i], table, taken, At(where + ".cells", i)));
      table.cells.push_back(std::move(cell));
    }
    // The writers walk the cells row-major by origin, as the server lists them.
    std::stable_sort(table.cells.begin(), table.cells.end(),
                     [](const layout::TableCell& a, const layout::TableCell& b) {
                       return a.row != b.row ? a.row < b.row : a.col < b.col;
                     });
    for (const layout::TableCell& cell : table.cells)
      for (const std::vector<std::size_t>& row : cell.rows)
        table.lines.insert(table.lines.end(), row.begin(), row.end());
    return table;
  }

  Result<layout::TableCell> Cell(const Json& item, const layout::Table& table,
                                 std::vector<bool>& taken, const std::string& where) {
    OCR_RETURN_IF_ERROR(Expect(item.is_object(), where, "must be an object"));
    layout::TableCell cell;
    OCR_ASSIGN_OR_RETURN(const Json* row, Member(item, "row", where));
    OCR_ASSIGN_OR_RETURN(cell.row, WholeNumber(*row, 0, table.row_count - 1, where + ".row"));
    OCR_ASSIGN_OR_RETURN(const Json* col, Member(item, "col", where));
    OCR_ASSIGN_OR_RETURN(cell.col, WholeNumber(*col, 0, table.col_count - 1, where + ".col"));
    if (const Json* span = Optional(item, "row_span")) {
      OCR_ASSIGN_OR_RETURN(cell.row_span,
                           WholeNumber(*span, 1, table.row_count - cell.row, where + ".row_span"));
    }
    if (const Json* span = Optional(item, "col_span")) {
      OCR_ASSIGN_OR_RETURN(cell.col_span,
                           WholeNumber(*span, 1, table.col_count - cell.col, where + ".col_span"));
    }
    for (int r = cell.row; r < cell.row + cell.row_span; ++r) {
      for (int c = cell.col; c < cell.col + cell.col_span; ++c) {
        const auto at = static_cast<std::size_t>(r) * static_cast<std::size_t>(table.col_count) +
                        static_cast<std::size_t>(c);
        OCR_RETURN_IF_ERROR(Expect(!taken[at], where,
                                   "covers row " + std::to_string(r) + ", column " +
                                       std::to_string(c) + ", which another cell covers"));
        taken[at] = true;
      }
    }
    if (const Json* lines = Optional(item, "lines")) {
      OCR_ASSIGN_OR_RETURN(cell.rows, Rows(*lines, where + ".lines"));
    }
    return cell;
  }

  const std::vector<pipeline::TextLine>& lines_;
  std::vector<bool> used_;
  std::size_t& table_cells_;
};

Result<document::DocumentPage> Page(const Json& item, std::size_t index, std::size_t& table_cells,
                                    const std::string& where) {
  OCR_RETURN_IF_ERROR(Expect(item.is_object(), where, "must be an object"));
  document::DocumentPage page;
  page.page = static_cast<int>(std::min<std::size_t>(index, INT_MAX));
  if (const Json* number = Optional(item, "page")) {
    OCR_ASSIGN_OR_RETURN(page.page, WholeNumber(*number, 0, INT_MAX, where + ".page"));
  }
  if (const Json* width = Optional(item, "width")) {
    OCR_ASSIGN_OR_RETURN(page.width, WholeNumber(*width, 0, INT_MAX, where + ".width"));
  }
  if (const Json* height = Optional(item, "height")) {
    OCR_ASSIGN_OR_RETURN(page.height, WholeNumber(*height, 0, INT_MAX, where + ".height"));
  }
  const Json* source = Optional(item, "source");
  page.from_text_layer = source != nullptr && source->is_string() && *source == "text_layer";
  OCR_ASSIGN_OR_RETURN(const Json* results, Member(item, "results", where));
  OCR_ASSIGN_OR_RETURN(page.lines, Lines(*results, where + ".results"));
  const Json* blocks = Optional(item, "blocks");
  if (blocks == nullptr)
    return page;
  OCR_RETURN_IF_ERROR(Expect(blocks->is_array(), where + ".blocks", "must be an array"));
  BlockReader reader(page.lines, table_cells);
  for (std::size_t i = 0; i < blocks->size(); ++i) {
    OCR_ASSIGN_OR_RETURN(layout::Block block, reader.Read((*blocks)[i], At(where + ".blocks", i)));
    page.blocks.push_back(std::move(block));
  }
  return page;
}

Result<document::DocumentResult> Document(const Json& answer) {
  OCR_RETURN_IF_ERROR(Expect(answer.is_object(), "answer", "must be an object"));
  document::DocumentResult document;
  std::size_t table_cells = 0;
  if (const Json* pages = Optional(answer, "pages")) {
    OCR_RETURN_IF_ERROR(Expect(pages->is_array(), "answer.pages", "must be an array"));
    for (std::size_t i = 0; i < pages->size(); ++i) {
      OCR_ASSIGN_OR_RETURN(document::DocumentPage page,
                           Page((*pages)[i], i, table_cells, At("answer.pages", i)));
      document.pages.push_back(std::move(page));
    }
    document.page_count = static_cast<int>(std::min<std::size_t>(pages->size(), INT_MAX));
    return document;
  }
  // The JSON form's answer: one page of lines, laid out when it is written.
  OCR_ASSIGN_OR_RETURN(const Json* results, Member(answer, "results", "answer"));
  document::DocumentPage page;
  OCR_ASSIGN_OR_RETURN(page.lines, Lines(*results, "answer.results"));
  document.pages.push_back(std::move(page));
  document.page_count = 1;
  return document;
}

std::optional<BadRequest> ReadShape(const Json& body, document::AnswerShape& shape) {
  const Json* format = Optional(body, "output_format");
  if (format == nullptr)
    return BadRequest{"missing_field",
                      "\"output_format\" is required: text, markdown, html or csv"};
  if (!format->is_string())
    return BadRequest{"invalid_option", "\"output_format\" must be a string"};
  const std::string& name = format->get_ref<const std::string&>();
  const Result<document::OutputFormat> parsed = document::ParseOutputFormat(name);
  if (!parsed.ok() || *parsed == document::OutputFormat::kJson || document::NeedsWordBoxes(*parsed))
    return BadRequest{"invalid_option",
                      "output_format must be one of text, markdown, html, csv (got '" +
                          PrintableEcho(name) +
                          "'): hOCR, ALTO and the PDF place each word, so ask POST /ocr for "
                          "them, and the answer is JSON already"};
  shape.format = *parsed;
  if (const Json* paginate = Optional(body, "paginate_output")) {
    if (!paginate->is_boolean())
      return BadRequest{"invalid_option", "\"paginate_output\" must be true or false"};
    shape.paginate = paginate->get<bool>();
  }
  return std::nullopt;
}

}  // namespace

ParsedRender ParseRenderRequest(std::string_view body) {
  const Json parsed = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object())
    return BadRequest{"invalid_json",
                      "the body must be a JSON object: {\"answer\": {...}, \"output_format\": "
                      "\"markdown\"}"};
  RenderCall call;
  if (std::optional<BadRequest> bad = ReadShape(parsed, call.shape))
    return *std::move(bad);
  const Json* answer = Optional(parsed, "answer");
  if (answer == nullptr)
    return BadRequest{"missing_field",
                      "\"answer\" is required: the JSON answer of POST /ocr or of a job's result"};
  Result<document::DocumentResult> document = Document(*answer);
  if (!document.ok())
    return BadRequest{"invalid_option", document.status().message()};
  call.document = std::move(document).value();
  return call;
}

}  // namespace ocr::http
