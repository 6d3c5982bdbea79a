// PDF/A-2b for a file QPDF holds (ISO 19005-2, level B: the file renders the same in years):
// XMP metadata with pdfaid part 2 and conformance B that agrees with the document information
// dictionary, and an sRGB output intent (icc-profiles-free's sRGB.icc, embedded at build time).
// Fonts embedded and no encryption are the writer's part (searchable_pdf.cpp). A PDF input that
// breaks PDF/A in its own content (fonts not embedded, transparency groups, JavaScript) is not
// repaired: that needs a rewrite of the content, which is Ghostscript's job in OCRmyPDF.
// Thread-safety: works on the QPDF it is given only.
#pragma once

#include "common/status.h"
#include "pdf/internal/qpdf.h"

namespace ocr::pdf::internal {

// Adds the metadata and the output intent to `pdf`'s catalog, replacing what was there. The
// information dictionary keeps its text entries (mirrored in the XMP, as PDF/A asks) and loses
// its dates, which PDF/A would also ask to mirror and which the file need not carry.
// Errors: kInternal when the ICC profile was not embedded at build time.
Status MakePdfA(QPDF& pdf);

}  // namespace ocr::pdf::internal
