// ALTO v4 (archive_xml.h), valid against the ALTO 4.4 schema.
#include <algorithm>
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "common/text.h"
#include "document/archive_xml.h"
#include "document/internal/line_words.h"
#include "document/render.h"

namespace ocr::document {
namespace {

using internal::BoundsOf;
using internal::PixelBox;
using layout::Block;

std::string Position(const PixelBox& b) {
  return " HPOS='" + std::to_string(b.x0) + "' VPOS='" + std::to_string(b.y0) + "' WIDTH='" +
         std::to_string(b.x1 - b.x0) + "' HEIGHT='" + std::to_string(b.y1 - b.y0) + "'";
}

std::string Wc(float confidence) {
  char text[16];
  std::snprintf(text, sizeof(text), "%.3f", std::clamp(confidence, 0.0f, 1.0f));
  return text;
}

void WriteLine(const pipeline::TextLine& line, const DocumentPage& page, const std::string& id,
               std::string& out) {
  // A TextLine holds at least one String: a line whose text XML cannot hold is left out.
  std::vector<std::pair<std::string, PixelBox>> words;
  std::vector<float> confidences;
  for (const internal::PlacedWord& word : internal::LineWords(line)) {
    std::string text = EscapeXml(word.text);
    if (text.empty())
      continue;
    words.emplace_back(std::move(text), BoundsOf(word.box, page));
    confidences.push_back(word.confidence);
  }
  if (words.empty())
    return;
  out += "        <TextLine ID='" + id + "'" + Position(BoundsOf(line.box, page)) + ">\n";
  for (std::size_t w = 0; w < words.size(); ++w) {
    const auto& [text, box] = words[w];
    if (w > 0) {
      const PixelBox& before = words[w - 1].second;
      out += "          <SP HPOS='" + std::to_string(before.x1) + "' VPOS='" +
             std::to_string(before.y0) + "' WIDTH='" +
             std::to_string(std::max(0, box.x0 - before.x1)) + "'/>\n";
    }
    out += fmt::format("          <String ID='{}_w{}' CONTENT='{}'{} WC='{}'/>\n", id, w + 1, text,
                       Position(box), Wc(confidences[w]));
  }
  out += "        </TextLine>\n";
}

void WriteAltoPage(const DocumentPage& page, int number, std::string& out) {
  const std::string p = "p" + std::to_string(number);
  const PixelBox whole{0, 0, std::max(0, page.width), std::max(0, page.height)};
  out += "    <Page ID='" + p + "' PHYSICAL_IMG_NR='" + std::to_string(number) + "' WIDTH='" +
         std::to_string(whole.x1) + "' HEIGHT='" + std::to_string(whole.y1) + "'>\n";
  out += "      <PrintSpace" + Position(whole) + ">\n";
  int block_id = 0;
  int line_id = 0;
  for (const Block& block : PageBlocks(page)) {
    const std::vector<std::size_t> indices = block.Lines();
    if (indices.empty())
      continue;
    const PixelBox area = internal::BoundsOfLines(page, indices);
    out += "      <TextBlock ID='" + p + "_b" + std::to_string(++block_id) + "'" + Position(area) +
           ">\n";
    for (const std::size_t i : indices)
      WriteLine(page.lines.at(i), page, p + "_l" + std::to_string(++line_id), out);
    out += "      </TextBlock>\n";
  }
  out += "      </PrintSpace>\n    </Page>\n";
}

}  // namespace

std::string FormatAlto(const DocumentResult& document) {
  std::string out =
      "<?xml version='1.0' encoding='UTF-8'?>\n"
      "<alto xmlns='http://www.loc.gov/standards/alto/ns-v4#' "
      "xmlns:xsi='http://www.w3.org/2001/XMLSchema-instance' "
      "xsi:schemaLocation='http://www.loc.gov/standards/alto/ns-v4# "
      "http://www.loc.gov/alto/v4/alto-4-4.xsd'>\n"
      "  <Description>\n"
      "    <MeasurementUnit>pixel</MeasurementUnit>\n"
      "    <OCRProcessing ID='ocr'>\n"
      "      <ocrProcessingStep>\n"
      "        <processingSoftware><softwareName>OnnxOCR Server</softwareName>"
      "</processingSoftware>\n"
      "      </ocrProcessingStep>\n"
      "    </OCRProcessing>\n"
      "  </Description>\n"
      "  <Layout>\n";
  int number = 0;
  for (const DocumentPage& page : document.pages)
    WriteAltoPage(page, ++number, out);
  out += "  </Layout>\n</alto>\n";
  return out;
}

}  // namespace ocr::document
