// The flags every subcommand that reads documents shares: which model sets to load and the
// limits on what an input may be (document::InputLimits, bound field by field). Declared once
// here, so `run` and `serve` spell, default and document them alike, each also as an ONNXOCR_*
// environment variable. Thread-safety: plain values, filled by CLI11 on one thread.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "document/limits.h"

namespace ocr::cli {

struct InputFlags {
  std::vector<std::string> models;  // NAME=DIR, first is the default
  document::InputLimits limits;     // --max-image-pixels, --max-pdf-pages, --pdf-dpi
};

// Declares --models, --max-image-pixels, --max-pdf-pages and --pdf-dpi on `cmd`.
void AddInputFlags(CLI::App& cmd, InputFlags& flags);

}  // namespace ocr::cli
