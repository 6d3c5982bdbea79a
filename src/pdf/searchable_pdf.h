// The searchable PDF (spec/API.md, "Archive formats"): a document that looks exactly as the input
// and carries the text read as an invisible layer (layer_content.h), with one glyphless font
// embedded once per file whose ToUnicode map gives the text back to search, copy and pdftotext.
// Written with QPDF (Debian's libqpdf), the library OCRmyPDF relies on; the only target that sees
// it. A PDF input keeps every page as it was (content, images, vectors, annotations, size,
// rotation): the layer is added over the pages read by OCR, after the page's own content wrapped
// in q/Q, and pages read from their own text layer get none. Images become one page each at
// their resolution, a JPEG embedded as the bytes it came in, other images losslessly.
// Thread-safety: pure functions (each builds its own QPDF).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <opencv2/core/mat.hpp>

#include "common/status.h"
#include "pdf/layer_content.h"

namespace ocr::pdf {

// Adds `layers` (page index from 0 -> its layer) to the PDF `pdf`. Each layer is in the pixels of
// the page as PdfDocument::RenderPage renders it (at any resolution: the layer's size gives the
// scale): the crop box, within the media box, turned by /Rotate. Pages without a layer are left
// as they are.
// With `pdfa`, the file is also made PDF/A-2b as far as adding to it can (internal/pdfa.h) and
// written without encryption.
// Errors: kInvalidPdf when QPDF cannot read the file; kInternal when it cannot write it.
Result<std::string> AddTextLayers(std::span<const std::uint8_t> pdf,
                                  const std::map<int, LayerPage>& layers, bool pdfa = false);

// An image to become a page: the JPEG file's own bytes when `jpeg` is set (baseline or
// progressive, 8 bits, `jpeg_components` 1 or 3), else what `pixels` gives (8-bit BGR, width x
// height, embedded losslessly). `pixels` is called while the file is written, one page at a time,
// so that a long TIFF is never held decoded whole; it may fail (the file then fails with its
// message). The page is width x height pixels at dpi_x by dpi_y, and its layer in those pixels.
struct ImagePage {
  std::span<const std::uint8_t> jpeg;
  int jpeg_components = 3;
  std::function<Result<cv::Mat>()> pixels;
  int width = 0;
  int height = 0;
  double dpi_x = 300;
  double dpi_y = 300;
  LayerPage layer;
};

// A PDF of `pages`, one page per image; PDF/A-2b with `pdfa`. Errors: kInvalidArgument for a
// page without an image or with a size of 0; kInternal when QPDF cannot write it.
Result<std::string> ImagesToPdf(std::span<const ImagePage> pages, bool pdfa = false);

}  // namespace ocr::pdf
