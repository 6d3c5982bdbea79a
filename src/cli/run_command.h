// `onnxocr run`: OCR files and print the API's JSON, or text, Markdown or HTML, to stdout.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/input_flags.h"

namespace ocr::cli {

struct RunOptions {
  InputFlags input;   // --models and the input limits
  std::string model;  // which set to use; empty = the first
  std::string format = "json";
  std::vector<std::string> files;
  int threads = 0;  // ONNX Runtime intra-op threads; 0 = all usable cores
  bool no_cls = false;
  float drop_score = 0.5f;
  bool force_ocr = false;   // PDFs: OCR pages that have a text layer too
  bool paginate = false;    // page separators in text, markdown and html output
  std::string page_range;   // PDFs and multi-frame TIFFs: "0-3,7"
  bool word_boxes = false;  // JSON output: each line lists its words with boxes
  bool reference = false;   // read as the reference pipeline does (parity checks)
};

// Declares the subcommand's flags on `app`, bound to `options`.
CLI::App* AddRunCommand(CLI::App& app, RunOptions& options);

// Returns the process exit code.
int Run(const RunOptions& options);

}  // namespace ocr::cli
