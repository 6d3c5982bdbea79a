#include "cli/input_flags.h"

#include <string>

#include "common/text.h"

namespace ocr::cli {

pipeline::OcrOptions InputFlags::Ocr() const {
  pipeline::OcrOptions o = ocr;
  o.det.limit_type =
      pipeline::ParseLimitType(AsciiLower(det_limit_type)).value_or(o.det.limit_type);
  o.text_normalization = AsciiLower(text_normalization) != "off";
  return o;
}

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
  cmd.add_option("--det-limit-side-len", f.ocr.det.limit_side_len,
                 "Detection resolution: the side --det-limit-type bounds, in pixels")
      ->envname("ONNXOCR_DET_LIMIT_SIDE_LEN")
      ->check(CLI::Range(pipeline::kMinDetLimitSideLen, pipeline::kMaxDetSide))
      ->capture_default_str();
  cmd.add_option("--det-limit-type", f.det_limit_type,
                 "max: shrink the longer side to the limit (the reference's); min: grow the "
                 "shorter side to it (PaddleOCR 3.x's); auto: max, then again finer where the text "
                 "is small")
      ->envname("ONNXOCR_DET_LIMIT_TYPE")
      ->check(CLI::IsMember({"max", "min", "auto"}, CLI::ignore_case))
      ->capture_default_str();
  cmd.add_option("--text-normalization", f.text_normalization,
                 "on: write the word spaces the recognizer saw but lost to the blank; off: its raw "
                 "output, as the reference pipeline gives it")
      ->envname("ONNXOCR_TEXT_NORMALIZATION")
      ->check(CLI::IsMember({"on", "off"}, CLI::ignore_case))
      ->capture_default_str();
}

}  // namespace ocr::cli
