// The flags every subcommand that reads documents shares: which model sets to load, the limits on
// what an input may be (document::InputLimits, bound field by field) and how pages are read: the
// options of document/request_options.h's table, each declared from its entry (name, help,
// range, default), so `run`, `serve` and `bench` spell, check and document them as the API
// does, each also as an ONNXOCR_* environment variable. Thread-safety: plain values, filled by
// CLI11 on one thread.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "document/document.h"
#include "document/limits.h"
#include "document/request_options.h"

namespace ocr::cli {

struct InputFlags {
  std::vector<std::string> models;  // NAME=DIR, first is the default
  document::InputLimits limits;     // --max-image-pixels, --max-pdf-pages, --pdf-dpi

  // `base` with the reading options given as flags (or their environment variables) set, and
  // the limits. The values were checked when the flags were parsed.
  document::DocumentOptions Options(document::DocumentOptions base = {}) const;

  // Each option's flag as CLI11 holds it, and its text (stable addresses for CLI11).
  std::vector<std::pair<const document::RequestOption*, CLI::Option*>> flags;
  std::map<std::string, std::string, std::less<>> values;
};

// Declares --models, --max-image-pixels, --max-pdf-pages, --pdf-dpi and the flags of the options
// marked `where` (document::kRunFlag or kServerFlag) on `cmd`.
void AddInputFlags(CLI::App& cmd, InputFlags& flags, unsigned where);

}  // namespace ocr::cli
