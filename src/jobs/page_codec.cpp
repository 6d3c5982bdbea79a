#include "jobs/page_codec.h"

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

}  // namespace

std::string EncodePage(const document::DocumentPage& page) {
  Json lines = Json::array();
  for (const pipeline::TextLine& line : page.lines) {
    Json words = Json::array();
    for (const pipeline::Word& w : line.words)
      words.push_back({w.text, Finite(w.confidence), QuadJson(w.box)});
    lines.push_back({line.text, Finite(line.confidence), QuadJson(line.box), std::move(words)});
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
    return page;
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal,
                  std::string("a stored page does not decode (") + e.what() + ")");
  }
}

}  // namespace ocr::jobs
