#include "jobs/page_codec.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace ocr::jobs {
namespace {

using Json = nlohmann::json;

// JSON has no NaN or infinity (nlohmann writes null): stored as 0, which no reader chokes on.
float Finite(float v) {
  return std::isfinite(v) ? v : 0.0f;
}

// A number that fits a float (converting a larger double to float is undefined behaviour).
float FloatFrom(const Json& j) {
  const double v = j.get<double>();
  if (!std::isfinite(v) || std::fabs(v) > std::numeric_limits<float>::max())
    throw std::out_of_range("a number does not fit a float");
  return static_cast<float>(v);
}

int IntFrom(const Json& j) {
  if (!j.is_number_integer())
    throw std::invalid_argument("a page number or size must be an integer");
  const auto v = j.get<std::int64_t>();
  if (v < 0 || v > std::numeric_limits<int>::max())
    throw std::out_of_range("a page number or size is out of range");
  return static_cast<int>(v);
}

Json QuadJson(const pipeline::Quad& quad) {
  Json out = Json::array();
  for (const pipeline::Point& p : quad) {
    out.push_back(Finite(p.x));
    out.push_back(Finite(p.y));
  }
  return out;
}

pipeline::Quad QuadFrom(const Json& j) {
  pipeline::Quad quad;
  if (!j.is_array() || j.size() != 8)
    throw std::invalid_argument("a box has 8 coordinates");
  for (std::size_t i = 0; i < 4; ++i)
    quad[i] = {FloatFrom(j[2 * i]), FloatFrom(j[2 * i + 1])};
  return quad;
}

Json RowsJson(const layout::TextRows& rows) {
  Json out = Json::array();
  for (const std::vector<std::size_t>& row : rows)
    out.push_back(row);
  return out;
}

// Line indices must point into the page's lines: a stored page is data, not trusted code.
layout::TextRows RowsFrom(const Json& j, std::size_t lines) {
  layout::TextRows rows;
  for (const Json& row : j) {
    std::vector<std::size_t>& indices = rows.emplace_back();
    for (const Json& index : row) {
      const auto i = index.get<std::size_t>();
      if (i >= lines)
        throw std::out_of_range("a block names a line the page does not have");
      indices.push_back(i);
    }
  }
  return rows;
}

int SpanFrom(const Json& j, int limit) {
  const int v = IntFrom(j);
  if (v > limit)
    throw std::out_of_range("a table cell is outside its table");
  return v;
}

// [type, [left, top, right, bottom], rows, level, ordered, table] with table = [rows, columns,
// header_rows, [left, top, right, bottom], [[row, col, row_span, col_span, rows], ...]].
Json BlockJson(const layout::Block& block) {
  const layout::Table& t = block.table;
  Json cells = Json::array();
  for (const layout::TableCell& c : t.cells)
    cells.push_back({c.row, c.col, c.row_span, c.col_span, RowsJson(c.rows)});
  return {static_cast<int>(block.type),
          {Finite(block.left), Finite(block.top), Finite(block.right), Finite(block.bottom)},
          RowsJson(block.rows),
          block.level,
          block.ordered,
          {t.row_count, t.col_count, t.header_rows,
           Json::array({Finite(t.left), Finite(t.top), Finite(t.right), Finite(t.bottom)}),
           std::move(cells)}};
}

layout::Block BlockFrom(const Json& j, std::size_t lines) {
  if (!j.is_array() || j.size() != 6)
    throw std::invalid_argument("a block has 6 fields");
  layout::Block block;
  const int type = IntFrom(j[0]);
  if (type > static_cast<int>(layout::BlockType::kTable))
    throw std::out_of_range("unknown block type");
  block.type = static_cast<layout::BlockType>(type);
  block.left = FloatFrom(j[1].at(0));
  block.top = FloatFrom(j[1].at(1));
  block.right = FloatFrom(j[1].at(2));
  block.bottom = FloatFrom(j[1].at(3));
  block.rows = RowsFrom(j[2], lines);
  block.level = SpanFrom(j[3], 6);
  block.ordered = j[4].get<bool>();
  const Json& t = j[5];
  layout::Table& table = block.table;
  // Tables are bounded by the lines they hold: a grid larger than that is not a stored table.
  const int limit = static_cast<int>(std::min<std::size_t>(lines + 1, 1 << 16));
  table.row_count = SpanFrom(t.at(0), limit);
  table.col_count = SpanFrom(t.at(1), limit);
  if (static_cast<std::size_t>(table.row_count) * static_cast<std::size_t>(table.col_count) >
      layout::kMaxTableCells)
    throw std::out_of_range("a table has more cells than a page's table can");
  table.header_rows = SpanFrom(t.at(2), table.row_count);
  table.left = FloatFrom(t.at(3).at(0));
  table.top = FloatFrom(t.at(3).at(1));
  table.right = FloatFrom(t.at(3).at(2));
  table.bottom = FloatFrom(t.at(3).at(3));
  int previous_row = 0;
  for (const Json& c : t.at(4)) {
    layout::TableCell cell;
    cell.row = SpanFrom(c.at(0), table.row_count - 1);
    cell.col = SpanFrom(c.at(1), table.col_count - 1);
    cell.row_span = SpanFrom(c.at(2), table.row_count - cell.row);
    cell.col_span = SpanFrom(c.at(3), table.col_count - cell.col);
    if (cell.row_span < 1 || cell.col_span < 1 || cell.row < previous_row)
      throw std::invalid_argument("a table cell is out of order or empty");
    previous_row = cell.row;
    cell.rows = RowsFrom(c.at(4), lines);
    for (const std::vector<std::size_t>& row : cell.rows)
      for (std::size_t i : row)
        table.lines.push_back(i);
    table.cells.push_back(std::move(cell));
  }
  return block;
}

}  // namespace

std::string EncodePage(const document::DocumentPage& page) {
  Json lines = Json::array();
  for (const pipeline::TextLine& line : page.lines) {
    Json words = Json::array();
    for (const pipeline::Word& w : line.words)
      words.push_back({w.text, Finite(w.confidence), QuadJson(w.box)});
    lines.push_back({line.text, Finite(line.confidence), QuadJson(line.box), std::move(words)});
  }
  Json blocks = Json::array();
  for (const layout::Block& block : page.blocks)
    blocks.push_back(BlockJson(block));
  const Json j = {page.page,        page.width,       page.height, page.from_text_layer,
                  std::move(lines), std::move(blocks)};
  // Text is the recognizer's UTF-8, but a text layer may hold anything: never throw on it.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Result<document::DocumentPage> DecodePage(std::string_view text) {
  try {
    const Json j = Json::parse(text);
    // Five fields: a page stored before pages kept their blocks (a replica not yet upgraded); its
    // blocks are laid out again from its lines when it is written out.
    if (!j.is_array() || (j.size() != 5 && j.size() != 6))
      throw std::invalid_argument("a page has 6 fields");
    document::DocumentPage page;
    page.page = IntFrom(j[0]);
    page.width = IntFrom(j[1]);
    page.height = IntFrom(j[2]);
    page.from_text_layer = j[3].get<bool>();
    for (const Json& l : j[4]) {
      pipeline::TextLine line;
      line.text = l.at(0).get<std::string>();
      line.confidence = FloatFrom(l.at(1));
      line.box = QuadFrom(l.at(2));
      for (const Json& w : l.at(3))
        line.words.push_back({w.at(0).get<std::string>(), FloatFrom(w.at(1)), QuadFrom(w.at(2))});
      page.lines.push_back(std::move(line));
    }
    if (j.size() == 6) {
      for (const Json& b : j[5])
        page.blocks.push_back(BlockFrom(b, page.lines.size()));
    }
    return page;
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal,
                  std::string("a stored page does not decode (") + e.what() + ")");
  }
}

Result<std::shared_ptr<document::DocumentResult>> DecodeDocument(
    int page_count, int pages_total, const std::map<std::size_t, std::string>& stored,
    std::string_view where) {
  auto result = std::make_shared<document::DocumentResult>();
  result->page_count = page_count;
  result->pages.resize(static_cast<std::size_t>(pages_total));
  if (stored.size() != result->pages.size()) {
    return Status(StatusCode::kUnavailable, "the job's pages are gone from " + std::string(where) +
                                                " (" + std::to_string(stored.size()) + " of " +
                                                std::to_string(result->pages.size()) + " left)");
  }
  for (const auto& [index, text] : stored) {
    if (index >= result->pages.size())
      return Status(StatusCode::kInternal, "a stored page index is out of range");
    OCR_ASSIGN_OR_RETURN(result->pages[index], DecodePage(text));
  }
  return result;
}

}  // namespace ocr::jobs
