// Fuzz target for PDF opening, page rendering and the text layer (pdf/pdf_document.h) under
// small limits. Checked: Open fails only with the documented codes and otherwise reports 1 to
// max_pages pages; page 0 renders to CV_8UC3 of exactly PageSize() and within the pixel limit,
// or fails with kInvalidPdf / kImageTooLarge (always kImageTooLarge when PageSize() is over the
// limit); text-layer boxes lie on the page; pages out of range are kInvalidArgument; a text
// layer added with QPDF (pdf/searchable_pdf.h) gives a PDF or fails with kInvalidPdf / kInternal;
// a page's scan resolution (pdf/scan_resolution.h) is none or a finite positive number, and page 0
// renders at it within the pixel limit or fails cleanly.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include <opencv2/core.hpp>

#include "document/text_layer.h"
#include "fuzz_support.h"
#include "pdf/pdf_document.h"
#include "pdf/scan_resolution.h"
#include "pdf/searchable_pdf.h"

namespace {

using ocr::StatusCode;

constexpr ocr::pdf::PdfLimits kLimits{.max_pages = 4, .dpi = 36, .max_page_pixels = 250'000};

bool IsPageError(StatusCode code) {
  return code == StatusCode::kInvalidPdf || code == StatusCode::kImageTooLarge;
}

void CheckRender(const ocr::pdf::PdfDocument& doc, const ocr::Result<cv::Size>& size) {
  const ocr::Result<cv::Mat> image = doc.RenderPage(0);
  if (!image.ok()) {
    OCR_FUZZ_CHECK(IsPageError(image.status().code()));
    if (size.ok() && std::int64_t{size->width} * size->height > kLimits.max_page_pixels)
      OCR_FUZZ_CHECK(image.status().code() == StatusCode::kImageTooLarge);
    return;
  }
  OCR_FUZZ_CHECK(size.ok());
  OCR_FUZZ_CHECK(image->type() == CV_8UC3);
  OCR_FUZZ_CHECK(image->size() == *size);
  OCR_FUZZ_CHECK(static_cast<std::int64_t>(image->total()) <= kLimits.max_page_pixels);
}

void CheckTextLayer(const ocr::pdf::PdfDocument& doc, const ocr::Result<cv::Size>& size) {
  const ocr::Result<ocr::document::TextLayerPage> text = ocr::document::ReadTextLayer(doc, 0);
  if (!text.ok()) {
    OCR_FUZZ_CHECK(IsPageError(text.status().code()));
    return;
  }
  OCR_FUZZ_CHECK(size.ok());
  OCR_FUZZ_CHECK(!text->usable || !text->lines.empty());
  for (const ocr::pipeline::TextLine& line : text->lines) {
    OCR_FUZZ_CHECK(line.confidence == 1.0f);
    for (const ocr::pipeline::Point& p : line.box) {
      OCR_FUZZ_CHECK(p.x >= 0 && p.x <= static_cast<float>(size->width));
      OCR_FUZZ_CHECK(p.y >= 0 && p.y <= static_cast<float>(size->height));
    }
  }
}

// The searchable PDF over the same bytes (QPDF reads them again): a layer of one word on page 1,
// in the frame poppler rendered, gives a PDF that starts as one, or a clean failure.
void CheckSearchable(std::span<const std::uint8_t> bytes, const ocr::Result<cv::Size>& size) {
  if (!size.ok())
    return;
  ocr::pdf::LayerPage layer;
  layer.width = size->width;
  layer.height = size->height;
  const auto w = static_cast<float>(size->width);
  const auto h = static_cast<float>(size->height);
  layer.lines.push_back({{"Word \xE4\xB8\xAD", {0, 0, w / 2, 0, w / 2, h / 2, 0, h / 2}}});
  // Every other input as PDF/A too: the XMP is made from the input's own information dictionary.
  const auto pdf = ocr::pdf::AddTextLayers(bytes, {{0, layer}}, bytes.size() % 2 == 1);
  if (!pdf.ok()) {
    const StatusCode code = pdf.status().code();
    OCR_FUZZ_CHECK(code == StatusCode::kInvalidPdf || code == StatusCode::kInternal);
    return;
  }
  OCR_FUZZ_CHECK(pdf->rfind("%PDF-", 0) == 0);
}

// The operators of every page read for a scan (and for one JPEG over the page); page 0, when it is
// a scan, rendered at its resolution (capped as the document reader caps it).
void CheckScanResolution(std::span<const std::uint8_t> bytes, const ocr::pdf::PdfDocument& doc) {
  const auto scans = ocr::pdf::ScanResolutions::Open(bytes);
  if (!scans.ok()) {
    OCR_FUZZ_CHECK(scans.status().code() == StatusCode::kInvalidPdf);
    return;
  }
  for (int page = -1; page <= doc.page_count(); ++page) {
    const auto scan = (*scans)->Of(page);
    OCR_FUZZ_CHECK(!scan || (std::isfinite(scan->dpi) && scan->dpi > 0));
    OCR_FUZZ_CHECK(!scan || (page >= 0 && page < doc.page_count()));
    OCR_FUZZ_CHECK(!scan || !scan->jpeg || scan->jpeg->components == 1 ||
                   scan->jpeg->components == 3);
    if (page == 0 && scan) {
      const ocr::Result<cv::Mat> image = doc.RenderPage(0, std::clamp(scan->dpi, 1.0, kLimits.dpi));
      if (image.ok())
        OCR_FUZZ_CHECK(static_cast<std::int64_t>(image->total()) <= kLimits.max_page_pixels);
      else
        OCR_FUZZ_CHECK(IsPageError(image.status().code()));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto doc = ocr::pdf::PdfDocument::Open(std::span<const std::uint8_t>(data, size), kLimits);
  if (!doc.ok()) {
    const StatusCode code = doc.status().code();
    OCR_FUZZ_CHECK(code == StatusCode::kInvalidPdf || code == StatusCode::kEncryptedPdf ||
                   code == StatusCode::kTooManyPages);
    return 0;
  }
  const ocr::pdf::PdfDocument& pdf = **doc;
  OCR_FUZZ_CHECK(pdf.page_count() >= 1 && pdf.page_count() <= kLimits.max_pages);
  const ocr::Result<cv::Size> page_size = pdf.PageSize(0);
  if (page_size.ok()) {
    OCR_FUZZ_CHECK(page_size->width >= 1 && page_size->height >= 1);
  } else {
    OCR_FUZZ_CHECK(IsPageError(page_size.status().code()));
  }
  CheckRender(pdf, page_size);
  CheckTextLayer(pdf, page_size);
  CheckSearchable(std::span<const std::uint8_t>(data, size), page_size);
  CheckScanResolution(std::span<const std::uint8_t>(data, size), pdf);
  OCR_FUZZ_CHECK(pdf.PageSize(pdf.page_count()).status().code() == StatusCode::kInvalidArgument);
  OCR_FUZZ_CHECK(pdf.PageSize(-1).status().code() == StatusCode::kInvalidArgument);
  return 0;
}
