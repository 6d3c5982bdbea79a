// Fuzz target for POST /render's body (http/render_request.h): an answer a client sends back to
// be written in another format. Each input is the body. Whatever it holds, the parser answers a
// document or one of its three error codes; a document is written in its format without fault;
// and a document made of pages with blocks, written as the server writes pages and read back,
// renders to the same bytes (rows found again from boxes are found again the same way).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "document/render.h"
#include "fuzz_support.h"
#include "http/render_request.h"
#include "http/response_json.h"

namespace {

using Json = nlohmann::json;

// Every page keeps the blocks it was given: no page is laid out anew when it is written.
bool BlocksGiven(const ocr::document::DocumentResult& doc) {
  for (const ocr::document::DocumentPage& page : doc.pages) {
    if (page.blocks.empty() && !page.lines.empty())
      return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body = ocr::fuzz::AsText(data, size);
  const ocr::http::ParsedRender parsed = ocr::http::ParseRenderRequest(body);
  if (const auto* bad = std::get_if<ocr::http::BadRequest>(&parsed)) {
    OCR_FUZZ_CHECK(bad->code == "invalid_json" || bad->code == "missing_field" ||
                   bad->code == "invalid_option");
    OCR_FUZZ_CHECK(!bad->message.empty());
    return 0;
  }
  const ocr::http::RenderCall& call = std::get<ocr::http::RenderCall>(parsed);
  const std::string output =
      ocr::document::FormatDocument(call.document, call.shape.format, call.shape.paginate);
  if (!BlocksGiven(call.document))
    return 0;
  Json pages = Json::array();
  for (const ocr::document::DocumentPage& page : call.document.pages)
    pages.push_back(ocr::http::PageJson(page));
  const Json again = {{"answer", {{"pages", pages}}},
                      {"output_format", ocr::document::OutputFormatName(call.shape.format)},
                      {"paginate_output", call.shape.paginate}};
  const ocr::http::ParsedRender reread = ocr::http::ParseRenderRequest(again.dump());
  OCR_FUZZ_CHECK(std::holds_alternative<ocr::http::RenderCall>(reread));
  const ocr::http::RenderCall& second = std::get<ocr::http::RenderCall>(reread);
  OCR_FUZZ_CHECK(ocr::document::FormatDocument(second.document, call.shape.format,
                                               call.shape.paginate) == output);
  return 0;
}
