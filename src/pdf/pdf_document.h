// PdfDocument: PDF bytes -> page sizes, page images and the words of each page's text layer, one
// page at a time under page and pixel budgets, in this module's own plain types (what those words
// mean as lines is document/text_layer.h's business). This module is the only one that includes
// poppler (GPL): poppler types stay behind the pimpl in pdf_document.cpp. It depends on nothing
// of ours but common.
//
// Budgets and bombs: Open() rejects a document with more than PdfLimits::max_pages pages before any
// page is read, and RenderPage() refuses a page whose render would exceed max_page_pixels before
// rendering it. poppler itself cannot be interrupted: a pathological page (deeply nested or huge
// objects) may still take long to parse or draw. The caller bounds that with the request deadline
// (--request-timeout) and drops the late result; nothing here blocks forever on valid input.
//
// Thread-safety: not thread-safe (poppler documents are not). To work on pages in parallel, open
// one PdfDocument per worker from the same bytes; Open() only reads the cross-reference table and
// the page count, so it is cheap.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "common/status.h"

namespace ocr::pdf {

struct PdfLimits {
  int max_pages = 200;                        // documents with more pages: kTooManyPages
  double dpi = 200;                           // render resolution, dots per inch, in (0, 2400]
  std::int64_t max_page_pixels = 50'000'000;  // a page whose render would exceed: kImageTooLarge
};

// One word of a page's text layer, in RENDERED pixels (y down, the frame of RenderPage()),
// clipped to the page, in poppler's reading order.
struct Word {
  std::string text;  // UTF-8, NULs dropped
  double x0 = 0;     // left
  double y0 = 0;     // top
  double x1 = 0;     // right
  double y1 = 0;     // bottom
  // Reading direction in quarter turns clockwise: 0 left-to-right, 1 top-to-bottom,
  // 2 right-to-left (upside down), 3 bottom-to-top (poppler's TextWord rotation).
  int rotation = 0;
  bool space_after = false;  // the layer has a space between this word and the next
};

class PdfDocument {
 public:
  // Opens a PDF from memory. `bytes` must outlive the document (poppler reads it in place).
  // Errors: kInvalidArgument (limits out of range), kInvalidPdf (not a PDF, truncated beyond
  // repair, no pages, over 2 GiB), kEncryptedPdf (needs a password), kTooManyPages.
  static Result<std::unique_ptr<PdfDocument>> Open(std::span<const std::uint8_t> bytes,
                                                   const PdfLimits& limits);

  PdfDocument(const PdfDocument&) = delete;
  PdfDocument& operator=(const PdfDocument&) = delete;
  ~PdfDocument();

  int page_count() const;

  // Page size in rendered pixels at limits.dpi: the crop box, turned by the page's /Rotate; equal
  // to the size of RenderPage(page). Errors: kInvalidArgument (page out of range), kInvalidPdf
  // (unreadable page or empty crop box), kImageTooLarge (a side does not fit in an int).
  Result<cv::Size> PageSize(int page) const;

  // Renders page `page` (0-based) to CV_8UC3 BGR at limits.dpi, white paper, antialiased.
  // Errors: as PageSize(); kImageTooLarge before rendering when width x height is over
  // max_page_pixels; kInvalidPdf when poppler fails to render.
  Result<cv::Mat> RenderPage(int page) const;
  // The same at `dpi` instead (in (0, 2400], else kInvalidArgument): a scanned page at its scan's
  // resolution (scan_resolution.h), about PageSize() scaled by dpi / limits.dpi.
  Result<cv::Mat> RenderPage(int page, double dpi) const;

  // The words of the page's text layer (none for a scan), boxes in the rendered page's pixels.
  // A text layer is whatever the file's author put there: it can differ from what the page shows.
  // Errors: as PageSize().
  Result<std::vector<Word>> Words(int page) const;

 private:
  struct Impl;

  explicit PdfDocument(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace ocr::pdf
