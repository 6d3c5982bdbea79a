#include "document/searchable_pdf.h"

#include <map>
#include <vector>

#include "document/internal/line_words.h"
#include "image/decode.h"
#include "pdf/searchable_pdf.h"

namespace ocr::document {
namespace {

pdf::LayerPage LayerOf(const DocumentPage& page) {
  pdf::LayerPage layer;
  layer.width = page.width;
  layer.height = page.height;
  for (const pipeline::TextLine& line : page.lines) {
    std::vector<pdf::LayerWord> words;
    for (const internal::PlacedWord& word : internal::LineWords(line)) {
      pdf::LayerWord w;
      w.text = word.text;
      for (std::size_t i = 0; i < 4; ++i) {
        w.corners[2 * i] = word.box[i].x;
        w.corners[2 * i + 1] = word.box[i].y;
      }
      words.push_back(std::move(w));
    }
    if (!words.empty())
      layer.lines.push_back(std::move(words));
  }
  return layer;
}

Result<std::string> ImagesPdf(std::span<const std::uint8_t> bytes, const DocumentResult& document,
                              const DocumentOptions& options, bool pdfa) {
  const image::EmbeddingInfo info = image::ProbeEmbedding(bytes);
  const bool jpeg = image::SniffFormat(bytes) == image::Format::kJpeg && info.jpeg_as_is;
  image::DecodeOptions decode;
  decode.max_pixels = options.limits.max_image_pixels;
  std::vector<pdf::ImagePage> pages;
  for (const DocumentPage& page : document.pages) {
    pdf::ImagePage p;
    p.width = page.width;
    p.height = page.height;
    p.dpi_x = info.dpi_x > 0 ? info.dpi_x : kDefaultImageDpi;
    p.dpi_y = info.dpi_y > 0 ? info.dpi_y : kDefaultImageDpi;
    p.layer = LayerOf(page);
    if (jpeg) {
      p.jpeg = bytes;
      p.jpeg_components = info.jpeg_components;
    } else {
      p.pixels = [bytes, frame = page.page, decode] {
        return image::DecodeFrame(bytes, frame, decode);
      };
    }
    pages.push_back(std::move(p));
  }
  return pdf::ImagesToPdf(pages, pdfa);
}

}  // namespace

Result<std::string> WriteSearchablePdf(std::span<const std::uint8_t> bytes,
                                       const DocumentResult& document,
                                       const DocumentOptions& options, bool pdfa) {
  if (image::SniffFormat(bytes) != image::Format::kPdf)
    return ImagesPdf(bytes, document, options, pdfa);
  std::map<int, pdf::LayerPage> layers;
  for (const DocumentPage& page : document.pages) {
    if (!page.from_text_layer)
      layers.emplace(page.page, LayerOf(page));
  }
  return pdf::AddTextLayers(bytes, layers, pdfa);
}

}  // namespace ocr::document
