#include "cli/input_flags.h"

namespace ocr::cli {

void AddInputFlags(CLI::App& cmd, InputFlags& f) {
  cmd.add_option("--models", f.models, "Model set NAME=DIR (repeatable; first is the default)")
      ->envname("ONNXOCR_MODELS")
      ->delimiter(',');
  cmd.add_option("--max-image-pixels", f.limits.max_image_pixels, "Largest image or page (w x h)")
      ->envname("ONNXOCR_MAX_IMAGE_PIXELS")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_option("--max-pdf-pages", f.limits.max_pages,
                 "Longest PDF (pages) or TIFF (frames) accepted")
      ->envname("ONNXOCR_MAX_PDF_PAGES")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd.add_option("--pdf-dpi", f.limits.pdf_dpi, "Resolution PDF pages are rendered at for OCR")
      ->envname("ONNXOCR_PDF_DPI")
      ->check(CLI::Range(36.0, 1200.0))
      ->capture_default_str();
}

}  // namespace ocr::cli
