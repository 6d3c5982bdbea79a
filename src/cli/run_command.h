// `onnxocr run`: OCR files and print the API's JSON, or text, Markdown, HTML, hOCR or ALTO, to
// stdout or -o; or write one file's searchable PDF. Exit codes: cli/exit_codes.h.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/input_flags.h"

namespace ocr::cli {

struct RunOptions {
  InputFlags input;   // --models, the input limits and the reading options
  std::string model;  // which set to use; empty = the first
  std::string format = "json";
  std::string output;              // -o: the file written instead of stdout
  std::vector<std::string> files;  // paths; "-" is standard input
  std::string progress = "auto";   // auto (when stderr is a terminal), on or off
  int threads = 0;                 // inference workers; 0 = one per usable core
  bool paginate = false;           // page separators in text, markdown and html output
  bool pdfa = false;               // --format pdf writes PDF/A-2b
  bool reference = false;          // read as the reference pipeline does (parity checks)
};

// Declares the subcommand's flags on `app`, bound to `options`.
CLI::App* AddRunCommand(CLI::App& app, RunOptions& options);

// Returns the process exit code.
int Run(const RunOptions& options);

}  // namespace ocr::cli
