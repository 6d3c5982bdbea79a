#include "http/marker_api.h"

#include <algorithm>
#include <array>
#include <string>

#include "common/text.h"
#include "document/render.h"

namespace ocr::http {
namespace {

using Json = nlohmann::ordered_json;

struct NamedFormat {
  std::string_view name;
  MarkerFormat format;
};

constexpr std::array<NamedFormat, 4> kFormats = {{
    {"markdown", MarkerFormat::kMarkdown},
    {"json", MarkerFormat::kJson},
    {"html", MarkerFormat::kHtml},
    {"chunks", MarkerFormat::kChunks},
}};

std::string PageId(int page) {
  return "/page/" + std::to_string(page) + "/Page/" + std::to_string(page);
}

std::string LineId(int page, std::size_t line) {
  return "/page/" + std::to_string(page) + "/Line/" + std::to_string(line);
}

// A rectangle as marker's PolygonBox gives it: four corners clockwise from the top-left, and
// [x0, y0, x1, y1].
Json RectPolygon(double x0, double y0, double x1, double y1) {
  return Json::array(
      {Json::array({x0, y0}), Json::array({x1, y0}), Json::array({x1, y1}), Json::array({x0, y1})});
}

struct Box {
  Json polygon;
  Json bbox;
};

Box LineBox(const pipeline::TextLine& line) {
  Box box{Json::array(), nullptr};
  double x0 = line.box[0].x, y0 = line.box[0].y, x1 = x0, y1 = y0;
  for (const pipeline::Point& p : line.box) {
    box.polygon.push_back(Json::array({static_cast<double>(p.x), static_cast<double>(p.y)}));
    x0 = std::min<double>(x0, p.x);
    y0 = std::min<double>(y0, p.y);
    x1 = std::max<double>(x1, p.x);
    y1 = std::max<double>(y1, p.y);
  }
  box.bbox = Json::array({x0, y0, x1, y1});
  return box;
}

// One text line as a leaf block of marker's JSON (its html a paragraph).
Json LineBlock(const document::DocumentPage& page, std::size_t index) {
  const pipeline::TextLine& line = page.lines[index];
  Box box = LineBox(line);
  return {{"id", LineId(page.page, index)},
          {"block_type", "Line"},
          {"html", "<p>" + EscapeHtml(line.text) + "</p>"},
          {"polygon", std::move(box.polygon)},
          {"bbox", std::move(box.bbox)},
          {"children", nullptr},
          {"section_hierarchy", Json::object()},
          {"images", Json::object()}};
}

// A page of marker's JSON: its html refers to its children by id, as marker's does.
Json PageBlock(const document::DocumentPage& page) {
  Json children = Json::array();
  std::string html;
  for (std::size_t i = 0; i < page.lines.size(); ++i) {
    html += "<content-ref src='" + LineId(page.page, i) + "'></content-ref>";
    children.push_back(LineBlock(page, i));
  }
  return {{"id", PageId(page.page)},
          {"block_type", "Page"},
          {"html", std::move(html)},
          {"polygon", RectPolygon(0, 0, page.width, page.height)},
          {"bbox", Json::array({0, 0, page.width, page.height})},
          {"children", std::move(children)},
          {"section_hierarchy", Json::object()},
          {"images", nullptr}};
}

// marker's JSONOutput without its metadata (marker's server leaves that out of `output` too).
Json DocumentTree(const document::DocumentResult& document) {
  Json pages = Json::array();
  for (const document::DocumentPage& page : document.pages)
    pages.push_back(PageBlock(page));
  return {{"children", std::move(pages)}, {"block_type", "Document"}};
}

// marker's ChunkOutput without its metadata: every page's blocks in one flat list.
Json Chunks(const document::DocumentResult& document) {
  Json blocks = Json::array();
  Json page_info = Json::object();
  for (const document::DocumentPage& page : document.pages) {
    for (std::size_t i = 0; i < page.lines.size(); ++i) {
      // marker's FlatBlockOutput: a leaf block without children, with its page.
      Json block = LineBlock(page, i);
      block.erase("children");
      block["page"] = page.page;
      blocks.push_back(std::move(block));
    }
    page_info[std::to_string(page.page)] = {
        {"bbox", Json::array({0, 0, page.width, page.height})},
        {"polygon", RectPolygon(0, 0, page.width, page.height)}};
  }
  return {{"blocks", std::move(blocks)}, {"page_info", std::move(page_info)}};
}

Json PageStats(const document::DocumentResult& document) {
  Json stats = Json::array();
  for (const document::DocumentPage& page : document.pages) {
    Json counts = Json::array();
    if (!page.lines.empty())
      counts.push_back(Json::array({"Line", page.lines.size()}));
    stats.push_back({{"page_id", page.page},
                     {"text_extraction_method", page.from_text_layer ? "pdftext" : "surya"},
                     {"block_counts", std::move(counts)},
                     {"block_metadata",
                      {{"llm_request_count", 0}, {"llm_error_count", 0}, {"llm_tokens_used", 0}}}});
  }
  return stats;
}

std::string Output(const document::DocumentResult& document, MarkerFormat format, bool paginate) {
  const auto dump = [](const Json& j) {
    return j.dump(2, ' ', false, Json::error_handler_t::replace);
  };
  switch (format) {
    case MarkerFormat::kMarkdown:
      return document::FormatDocument(document, document::OutputFormat::kMarkdown, paginate);
    case MarkerFormat::kHtml:
      return document::FormatDocument(document, document::OutputFormat::kHtml, paginate);
    case MarkerFormat::kJson:
      return dump(DocumentTree(document));
    case MarkerFormat::kChunks:
      return dump(Chunks(document));
  }
  return {};
}

}  // namespace

Result<MarkerFormat> ParseMarkerFormat(std::string_view name) {
  for (const NamedFormat& f : kFormats) {
    if (EqualsIgnoreCase(name, f.name))
      return f.format;
  }
  return InvalidArgument("output_format must be one of markdown, json, html, chunks (got '" +
                         PrintableEcho(name) + "')");
}

std::string_view MarkerFormatName(MarkerFormat format) {
  for (const NamedFormat& f : kFormats) {
    if (f.format == format)
      return f.name;
  }
  return "markdown";  // unreachable: every enumerator is in kFormats
}

Json MarkerResponseJson(const document::DocumentResult& document, MarkerFormat format,
                        bool paginate) {
  return {{"format", MarkerFormatName(format)},
          {"output", Output(document, format, paginate)},
          {"images", Json::object()},
          {"metadata", {{"table_of_contents", Json::array()}, {"page_stats", PageStats(document)}}},
          {"success", true}};
}

}  // namespace ocr::http
