// The searchable PDF of a document read (spec/API.md, "Archive formats"): the input as it was,
// with an invisible text layer of the words read (pdf/searchable_pdf.h writes it with QPDF). A
// PDF keeps every page; the pages read by OCR get a layer, those read from their own text layer
// none. An image, or each frame of a TIFF read, becomes a page at the resolution its file states
// (else kDefaultImageDpi): a JPEG as the bytes it came in when PDF readers show them as decoded
// here, any other image losslessly. Words are placed with their boxes; a line read without word
// boxes is split at its spaces.
// Thread-safety: a pure function.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "common/status.h"
#include "document/document.h"

namespace ocr::document {

// An image that states no resolution is drawn at this many dots per inch (a scan's usual one; a
// phone photo then makes a large page, which viewers fit to the window).
inline constexpr double kDefaultImageDpi = 300;

// REQUIRES: `document` was read from `bytes` with `options`. `pdfa`: write PDF/A-2b.
// Errors: kInvalidPdf when the PDF cannot be read again; the decoding errors of a frame;
// kInternal when the PDF cannot be written.
Result<std::string> WriteSearchablePdf(std::span<const std::uint8_t> bytes,
                                       const DocumentResult& document,
                                       const DocumentOptions& options, bool pdfa);

}  // namespace ocr::document
