#include "jobs/page_codec.h"

#include <nlohmann/json.hpp>

namespace ocr::jobs {
namespace {

using Json = nlohmann::json;

Json QuadJson(const pipeline::Quad& quad) {
  Json out = Json::array();
  for (const pipeline::Point& p : quad) {
    out.push_back(p.x);
    out.push_back(p.y);
  }
  return out;
}

pipeline::Quad QuadFrom(const Json& j) {
  pipeline::Quad quad;
  if (!j.is_array() || j.size() != 8)
    throw std::invalid_argument("a box has 8 coordinates");
  for (std::size_t i = 0; i < 4; ++i)
    quad[i] = {j[2 * i].get<float>(), j[2 * i + 1].get<float>()};
  return quad;
}

}  // namespace

std::string EncodePage(const document::DocumentPage& page) {
  Json lines = Json::array();
  for (const pipeline::TextLine& line : page.lines) {
    Json words = Json::array();
    for (const pipeline::Word& w : line.words)
      words.push_back({w.text, w.confidence, QuadJson(w.box)});
    lines.push_back({line.text, line.confidence, QuadJson(line.box), std::move(words)});
  }
  const Json j = {page.page, page.width, page.height, page.from_text_layer, std::move(lines)};
  // Text is the recognizer's UTF-8, but a text layer may hold anything: never throw on it.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Result<document::DocumentPage> DecodePage(std::string_view text) {
  try {
    const Json j = Json::parse(text);
    if (!j.is_array() || j.size() != 5)
      throw std::invalid_argument("a page has 5 fields");
    document::DocumentPage page;
    page.page = j[0].get<int>();
    page.width = j[1].get<int>();
    page.height = j[2].get<int>();
    page.from_text_layer = j[3].get<bool>();
    for (const Json& l : j[4]) {
      pipeline::TextLine line;
      line.text = l.at(0).get<std::string>();
      line.confidence = l.at(1).get<float>();
      line.box = QuadFrom(l.at(2));
      for (const Json& w : l.at(3))
        line.words.push_back({w.at(0).get<std::string>(), w.at(1).get<float>(), QuadFrom(w.at(2))});
      page.lines.push_back(std::move(line));
    }
    return page;
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal,
                  std::string("a stored page does not decode (") + e.what() + ")");
  }
}

}  // namespace ocr::jobs
