// InputLimits: the bounds on what one input (an upload or a file on the command line) may be.
// Declared once here with their defaults and passed whole, from the flags (cli/input_flags.h)
// through the server to every document read, so every path enforces the same numbers.
// Thread-safety: a plain value.
#pragma once

#include <cstdint>

namespace ocr::document {

struct InputLimits {
  // Largest width x height of an image, of each TIFF frame and of each PDF page as rendered;
  // checked from the file's header (or the page size) before any pixel is decoded. Over it:
  // 422 image_too_large. Flag --max-image-pixels.
  std::int64_t max_image_pixels = 50'000'000;

  // Most pages of a PDF, and frames of a multi-frame TIFF, that a document may have; checked
  // before any page is read. Over it: 422 too_many_pages. Flag --max-pdf-pages.
  int max_pages = 200;

  // Resolution, dots per inch, at which PDF pages are rendered for OCR and in whose pixels their
  // boxes are given. 200 reads body text at about the size the detector was trained on.
  // Flag --pdf-dpi, in [36, 1200].
  double pdf_dpi = 200;
};

}  // namespace ocr::document
