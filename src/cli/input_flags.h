// The flags every subcommand that reads documents shares: which model sets to load, the limits on
// what an input may be (document::InputLimits, bound field by field) and how pages are read (the
// defaults of pipeline::OcrOptions that a request may override). Declared once here, so `run`,
// `serve` and `bench` spell, default and document them alike, each also as an ONNXOCR_*
// environment variable. Thread-safety: plain values, filled by CLI11 on one thread.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "document/limits.h"
#include "pipeline/pipeline.h"

namespace ocr::cli {

struct InputFlags {
  std::vector<std::string> models;        // NAME=DIR, first is the default
  document::InputLimits limits;           // --max-image-pixels, --max-pdf-pages, --pdf-dpi
  pipeline::OcrOptions ocr;               // --det-limit-side-len; the other fields stay default
  std::string det_limit_type = "auto";    // --det-limit-type: max, min or auto (checked by CLI11)
  std::string text_normalization = "on";  // --text-normalization: on or off

  // `ocr` with the limit type and normalization applied: the pipeline options the flags ask for.
  pipeline::OcrOptions Ocr() const;
};

// Declares --models, --max-image-pixels, --max-pdf-pages, --pdf-dpi, --det-limit-side-len,
// --det-limit-type and --text-normalization on `cmd`.
void AddInputFlags(CLI::App& cmd, InputFlags& flags);

}  // namespace ocr::cli
