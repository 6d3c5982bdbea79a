#include "http/response_json.h"

namespace ocr::http {

namespace {

nlohmann::json QuadToJson(const pipeline::Quad& quad) {
  nlohmann::json box = nlohmann::json::array();
  for (const auto& p : quad)
    box.push_back({static_cast<double>(p.x), static_cast<double>(p.y)});
  return box;
}

}  // namespace

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

nlohmann::json OcrResponseJson(std::span<const pipeline::TextLine> lines, double seconds,
                               bool words) {
  return {{"processing_time", seconds}, {"results", LinesToJson(lines, words)}};
}

nlohmann::json PageJson(const document::DocumentPage& page, bool words) {
  return {{"page", page.page},
          {"width", page.width},
          {"height", page.height},
          {"source", page.from_text_layer ? "text_layer" : "ocr"},
          {"results", LinesToJson(page.lines, words)}};
}

nlohmann::json DocumentSummaryJson(const document::DocumentResult& document,
                                   document::OutputFormat format, bool paginate, double seconds) {
  nlohmann::json out = {{"success", true},
                        {"format", document::OutputFormatName(format)},
                        {"page_count", document.page_count}};
  if (format != document::OutputFormat::kJson)
    out["output"] = document::FormatDocument(document, format, paginate);
  out["processing_time"] = seconds;
  return out;
}

nlohmann::json DocumentResponseJson(const document::DocumentResult& document,
                                    document::OutputFormat format, bool paginate, double seconds,
                                    bool words) {
  nlohmann::json pages = nlohmann::json::array();
  nlohmann::json all_lines = nlohmann::json::array();
  for (const document::DocumentPage& page : document.pages) {
    nlohmann::json page_json = PageJson(page, words);
    for (const auto& line : page_json["results"])
      all_lines.push_back(line);
    pages.push_back(std::move(page_json));
  }
  nlohmann::json out = DocumentSummaryJson(document, format, paginate, seconds);
  out["pages"] = std::move(pages);
  out["results"] = std::move(all_lines);
  return out;
}

}  // namespace ocr::http
