// The flags every subcommand that reads documents shares: which model sets to load and the
// limits on what an input may be. Declared once here, so `run` and `serve` (and later `bench`)
// spell, default and document them alike, each also as an ONNXOCR_* environment variable.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace ocr::cli {

struct InputFlags {
  std::vector<std::string> models;          // NAME=DIR, first is the default
  long long max_image_pixels = 50'000'000;  // width x height, images and rendered PDF pages
  int max_pdf_pages = 200;                  // PDF pages, and frames of a multi-frame TIFF
  double pdf_dpi = 200;                     // PDF pages are rendered at this resolution for OCR
};

// Declares --models, --max-image-pixels, --max-pdf-pages and --pdf-dpi on `cmd`.
void AddInputFlags(CLI::App& cmd, InputFlags& flags);

}  // namespace ocr::cli
