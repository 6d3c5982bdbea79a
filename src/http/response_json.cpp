#include "http/response_json.h"

namespace ocr::http {

namespace {

nlohmann::json QuadToJson(const pipeline::Quad& quad) {
  nlohmann::json box = nlohmann::json::array();
  for (const auto& p : quad)
    box.push_back({static_cast<double>(p.x), static_cast<double>(p.y)});
  return box;
}

nlohmann::json IndicesJson(const std::vector<std::size_t>& indices) {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i : indices)
    out.push_back(i);
  return out;
}

nlohmann::json FlatIndicesJson(const layout::TextRows& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& row : rows)
    for (std::size_t i : row)
      out.push_back(i);
  return out;
}

}  // namespace

nlohmann::json BlocksJson(std::span<const layout::Block> blocks) {
  nlohmann::json out = nlohmann::json::array();
  for (const layout::Block& block : blocks) {
    nlohmann::json item = {{"type", layout::BlockTypeName(block.type)},
                           {"bbox",
                            {static_cast<double>(block.left), static_cast<double>(block.top),
                             static_cast<double>(block.right), static_cast<double>(block.bottom)}},
                           {"lines", IndicesJson(block.Lines())}};
    if (block.type == layout::BlockType::kHeading)
      item["level"] = block.level;
    if (block.type == layout::BlockType::kListItem)
      item["ordered"] = block.ordered;
    if (block.type == layout::BlockType::kTable) {
      const layout::Table& table = block.table;
      item["rows"] = table.row_count;
      item["columns"] = table.col_count;
      item["header_rows"] = table.header_rows;
      nlohmann::json cells = nlohmann::json::array();
      for (const layout::TableCell& cell : table.cells) {
        cells.push_back({{"row", cell.row},
                         {"col", cell.col},
                         {"row_span", cell.row_span},
                         {"col_span", cell.col_span},
                         {"lines", FlatIndicesJson(cell.rows)}});
      }
      item["cells"] = std::move(cells);
    }
    out.push_back(std::move(item));
  }
  return out;
}

nlohmann::json LinesToJson(std::span<const pipeline::TextLine> lines, bool words) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& line : lines) {
    nlohmann::json item = {{"text", line.text},
                           {"confidence", static_cast<double>(line.confidence)},
                           {"bounding_box", QuadToJson(line.box)}};
    if (words) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& word : line.words) {
        list.push_back({{"text", word.text},
                        {"confidence", static_cast<double>(word.confidence)},
                        {"bounding_box", QuadToJson(word.box)}});
      }
      item["words"] = std::move(list);
    }
    out.push_back(std::move(item));
  }
  return out;
}

nlohmann::json PageJson(const document::DocumentPage& page, bool words) {
  return {{"page", page.page},
          {"width", page.width},
          {"height", page.height},
          {"source", page.from_text_layer ? "text_layer" : "ocr"},
          {"results", LinesToJson(page.lines, words)},
          {"blocks", BlocksJson(document::PageBlocks(page))}};
}

}  // namespace ocr::http
