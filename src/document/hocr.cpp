// hOCR 1.2 (archive_xml.h): the structure OCRmyPDF's hOCR reader and Tesseract's writer share.
#include <cmath>
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

std::string BboxText(const PixelBox& b) {
  return "bbox " + std::to_string(b.x0) + " " + std::to_string(b.y0) + " " + std::to_string(b.x1) +
         " " + std::to_string(b.y1);
}

// The baseline in hOCR's terms: the slope of the line's bottom edge, and its height above the
// bottom-left corner of the line's bbox (zero or negative, in pixels).
std::string BaselineText(const pipeline::Quad& q, const PixelBox& box) {
  const float dx = q[2].x - q[3].x;
  const float slope = std::abs(dx) < 1 ? 0.0f : (q[2].y - q[3].y) / dx;
  const float y_at_left = q[3].y + slope * (static_cast<float>(box.x0) - q[3].x);
  const float offset = std::min(0.0f, y_at_left - static_cast<float>(box.y1));
  char text[64];
  std::snprintf(text, sizeof(text), "baseline %.4g %.0f", std::isfinite(slope) ? slope : 0.0f,
                std::isfinite(offset) ? offset : 0.0f);
  return text;
}

int Wconf(float confidence) {
  return static_cast<int>(std::lround(std::clamp(confidence, 0.0f, 1.0f) * 100.0f));
}

void WriteHocrPage(const DocumentPage& page, int number, std::string& out) {
  const std::string n = std::to_string(number);
  out += "  <div class='ocr_page' id='page_" + n + "' title='bbox 0 0 " +
         std::to_string(page.width) + " " + std::to_string(page.height) + "; ppageno " +
         std::to_string(page.page) + "'>\n";
  int block_id = 0;
  int line_id = 0;
  int word_id = 0;
  for (const Block& block : PageBlocks(page)) {
    const std::vector<std::size_t> indices = block.Lines();
    if (indices.empty())
      continue;
    const PixelBox area = internal::BoundsOfLines(page, indices);
    const std::string b = n + "_" + std::to_string(++block_id);
    out += "   <div class='ocr_carea' id='block_" + b + "' title='" + BboxText(area) + "'>\n";
    out += "    <p class='ocr_par' id='par_" + b + "' title='" + BboxText(area) + "'>\n";
    for (const std::size_t i : indices) {
      const pipeline::TextLine& line = page.lines.at(i);
      const PixelBox box = BoundsOf(line.box, page);
      out += "     <span class='ocr_line' id='line_" + n + "_" + std::to_string(++line_id) +
             "' title='" + BboxText(box) + "; " + BaselineText(line.box, box) + "; x_size " +
             std::to_string(box.y1 - box.y0) + "'>";
      bool first = true;
      for (const internal::PlacedWord& word : internal::LineWords(line)) {
        const std::string text = EscapeXml(word.text);
        if (text.empty())
          continue;
        if (!first)
          out += ' ';
        first = false;
        out += fmt::format(
            "<span class='ocrx_word' id='word_{}_{}' title='{}; x_wconf {}'>{}</span>", n,
            ++word_id, BboxText(BoundsOf(word.box, page)), Wconf(word.confidence), text);
      }
      out += "</span>\n";
    }
    out += "    </p>\n   </div>\n";
  }
  out += "  </div>\n";
}

}  // namespace

std::string FormatHocr(const DocumentResult& document) {
  std::string out =
      "<?xml version='1.0' encoding='UTF-8'?>\n"
      "<!DOCTYPE html PUBLIC '-//W3C//DTD XHTML 1.0 Transitional//EN' "
      "'http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd'>\n"
      "<html xmlns='http://www.w3.org/1999/xhtml' xml:lang='en' lang='en'>\n"
      " <head>\n"
      "  <title></title>\n"
      "  <meta http-equiv='Content-Type' content='text/html;charset=utf-8'/>\n"
      "  <meta name='ocr-system' content='onnxocr-server'/>\n"
      "  <meta name='ocr-capabilities' content='ocr_page ocr_carea ocr_par ocr_line ocrx_word "
      "ocrp_wconf'/>\n"
      " </head>\n"
      " <body>\n";
  int number = 0;
  for (const DocumentPage& page : document.pages)
    WriteHocrPage(page, ++number, out);
  out += " </body>\n</html>\n";
  return out;
}

}  // namespace ocr::document
