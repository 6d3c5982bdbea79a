#include "http/marker_api.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <span>
#include <string>

#include "common/text.h"
#include "document/render.h"

namespace ocr::http {
namespace {

using OrderedJson = nlohmann::ordered_json;

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

// marker's name for each kind of block.
std::string_view MarkerBlockType(layout::BlockType type) {
  switch (type) {
    case layout::BlockType::kParagraph:
      return "Text";
    case layout::BlockType::kHeading:
      return "SectionHeader";
    case layout::BlockType::kListItem:
      return "ListItem";
    case layout::BlockType::kTable:
      return "Table";
  }
  return "Text";
}

std::string BlockId(int page, std::string_view type, std::size_t n) {
  return "/page/" + std::to_string(page) + "/" + std::string(type) + "/" + std::to_string(n);
}

// A rectangle as marker's PolygonBox gives it: four corners clockwise from the top-left, and
// [x0, y0, x1, y1].
OrderedJson RectPolygon(double x0, double y0, double x1, double y1) {
  return OrderedJson::array({OrderedJson::array({x0, y0}), OrderedJson::array({x1, y0}),
                             OrderedJson::array({x1, y1}), OrderedJson::array({x0, y1})});
}

// marker's JSONBlockOutput fields of one block.
OrderedJson BlockJson(std::string id, std::string_view type, std::string html, double x0, double y0,
                      double x1, double y1, OrderedJson children, const OrderedJson& hierarchy) {
  return {{"id", std::move(id)},
          {"block_type", type},
          {"html", std::move(html)},
          {"polygon", RectPolygon(x0, y0, x1, y1)},
          {"bbox", OrderedJson::array({x0, y0, x1, y1})},
          {"children", std::move(children)},
          {"section_hierarchy", hierarchy},
          {"images", OrderedJson::object()}};
}

// A page's blocks as marker's top-level blocks: Text, SectionHeader and Table leaves, and a
// ListGroup around each run of list items (its html the whole list, its children the ListItem
// leaves). Each carries the section hierarchy above it (heading level -> the heading's id), which
// runs on from page to page as marker's does.
OrderedJson PageChildren(const document::DocumentPage& page, OrderedJson& hierarchy) {
  const std::vector<layout::Block> blocks = document::PageBlocks(page);
  OrderedJson children = OrderedJson::array();
  std::size_t n = 0;  // block ids number the page's blocks, as marker's do
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const layout::Block& block = blocks[i];
    const std::string_view type = MarkerBlockType(block.type);
    if (block.type == layout::BlockType::kHeading) {
      // A heading closes the sections below its level.
      for (auto it = hierarchy.begin(); it != hierarchy.end();) {
        it = std::stoi(it.key()) >= block.level ? hierarchy.erase(it) : std::next(it);
      }
      hierarchy[std::to_string(block.level)] = BlockId(page.page, type, n);
    }
    if (block.type != layout::BlockType::kListItem) {
      children.push_back(BlockJson(BlockId(page.page, type, n++), type,
                                   document::BlockHtml(page.lines, block), block.left, block.top,
                                   block.right, block.bottom, nullptr, hierarchy));
      continue;
    }
    // A run of list items of one kind is one list.
    std::size_t end = i;
    while (end < blocks.size() && blocks[end].type == layout::BlockType::kListItem &&
           blocks[end].ordered == block.ordered)
      ++end;
    const std::string group_id = BlockId(page.page, "ListGroup", n++);
    OrderedJson items = OrderedJson::array();
    std::string html = block.ordered ? "<ol>" : "<ul>";
    double x0 = block.left;
    double y0 = block.top;
    double x1 = block.right;
    double y1 = block.bottom;
    for (std::size_t k = i; k < end; ++k) {
      const layout::Block& item = blocks[k];
      const std::string id = BlockId(page.page, "ListItem", n++);
      html += "<content-ref src='" + id + "'></content-ref>";
      items.push_back(BlockJson(id, "ListItem", document::BlockHtml(page.lines, item), item.left,
                                item.top, item.right, item.bottom, nullptr, hierarchy));
      x0 = std::min<double>(x0, item.left);
      y0 = std::min<double>(y0, item.top);
      x1 = std::max<double>(x1, item.right);
      y1 = std::max<double>(y1, item.bottom);
    }
    html += block.ordered ? "</ol>" : "</ul>";
    children.push_back(BlockJson(group_id, "ListGroup", std::move(html), x0, y0, x1, y1,
                                 std::move(items), hierarchy));
    i = end - 1;
  }
  return children;
}

// A page of marker's JSON: its html refers to its children by id, as marker's does.
OrderedJson PageBlock(const document::DocumentPage& page, OrderedJson& hierarchy) {
  OrderedJson children = PageChildren(page, hierarchy);
  std::string html;
  for (const OrderedJson& child : children)
    html += "<content-ref src='" + child["id"].get<std::string>() + "'></content-ref>";
  return {{"id", PageId(page.page)},
          {"block_type", "Page"},
          {"html", std::move(html)},
          {"polygon", RectPolygon(0, 0, page.width, page.height)},
          {"bbox", OrderedJson::array({0, 0, page.width, page.height})},
          {"children", std::move(children)},
          {"section_hierarchy", OrderedJson::object()},
          {"images", nullptr}};
}

// marker's JSONOutput without its metadata (marker's server leaves that out of `output` too).
OrderedJson DocumentTree(const document::DocumentResult& document) {
  OrderedJson pages = OrderedJson::array();
  OrderedJson hierarchy = OrderedJson::object();
  for (const document::DocumentPage& page : document.pages)
    pages.push_back(PageBlock(page, hierarchy));
  return {{"children", std::move(pages)}, {"block_type", "Document"}};
}

// The list's html with its items written out in place of their content-refs.
std::string ResolvedHtml(const OrderedJson& block) {
  if (!block["children"].is_array())
    return block["html"].get<std::string>();
  std::string html = block["html"].get<std::string>();
  for (const OrderedJson& child : block["children"]) {
    const std::string ref =
        "<content-ref src='" + child["id"].get<std::string>() + "'></content-ref>";
    const std::size_t at = html.find(ref);
    if (at != std::string::npos)
      html.replace(at, ref.size(), child["html"].get<std::string>());
  }
  return html;
}

// marker's ChunkOutput without its metadata: every page's top-level blocks in one flat list,
// each with its html written out in full and its page.
OrderedJson Chunks(const document::DocumentResult& document) {
  OrderedJson blocks = OrderedJson::array();
  OrderedJson page_info = OrderedJson::object();
  OrderedJson hierarchy = OrderedJson::object();
  for (const document::DocumentPage& page : document.pages) {
    for (OrderedJson& child : PageChildren(page, hierarchy)) {
      // marker's FlatBlockOutput: a block without children, with its page.
      child["html"] = ResolvedHtml(child);
      child.erase("children");
      child["page"] = page.page;
      blocks.push_back(std::move(child));
    }
    page_info[std::to_string(page.page)] = {
        {"bbox", OrderedJson::array({0, 0, page.width, page.height})},
        {"polygon", RectPolygon(0, 0, page.width, page.height)}};
  }
  return {{"blocks", std::move(blocks)}, {"page_info", std::move(page_info)}};
}

// marker's table of contents: the headings in document order.
OrderedJson TableOfContents(const document::DocumentResult& document) {
  OrderedJson toc = OrderedJson::array();
  for (const document::DocumentPage& page : document.pages) {
    for (const layout::Block& block : document::PageBlocks(page)) {
      if (block.type != layout::BlockType::kHeading)
        continue;
      toc.push_back({{"title", document::BlockText(page.lines, block)},
                     {"heading_level", block.level},
                     {"page_id", page.page},
                     {"polygon", RectPolygon(block.left, block.top, block.right, block.bottom)}});
    }
  }
  return toc;
}

OrderedJson PageStats(const document::DocumentResult& document) {
  OrderedJson stats = OrderedJson::array();
  for (const document::DocumentPage& page : document.pages) {
    OrderedJson counts = OrderedJson::array();
    if (!page.lines.empty())
      counts.push_back(OrderedJson::array({"Line", page.lines.size()}));
    std::map<std::string_view, std::size_t> kinds;
    for (const layout::Block& block : document::PageBlocks(page))
      ++kinds[MarkerBlockType(block.type)];
    for (const auto& [kind, count] : kinds)
      counts.push_back(OrderedJson::array({kind, count}));
    stats.push_back({{"page_id", page.page},
                     {"text_extraction_method", page.from_text_layer ? "pdftext" : "surya"},
                     {"block_counts", std::move(counts)},
                     {"block_metadata",
                      {{"llm_request_count", 0}, {"llm_error_count", 0}, {"llm_tokens_used", 0}}}});
  }
  return stats;
}

std::string Output(const document::DocumentResult& document, MarkerFormat format, bool paginate) {
  const auto dump = [](const OrderedJson& j) {
    return j.dump(2, ' ', false, OrderedJson::error_handler_t::replace);
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

OrderedJson MarkerResponseJson(const document::DocumentResult& document, MarkerFormat format,
                               bool paginate) {
  return {{"format", MarkerFormatName(format)},
          {"output", Output(document, format, paginate)},
          {"images", OrderedJson::object()},
          {"metadata",
           {{"table_of_contents", TableOfContents(document)}, {"page_stats", PageStats(document)}}},
          {"success", true}};
}

}  // namespace ocr::http
