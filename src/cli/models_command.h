// `onnxocr models list|pull|verify` (spec/API.md section 5): the catalog of PaddlePaddle's
// published ONNX files and the sets built from them (catalog/catalog.h), which are installed in the
// models folder, pulling a set into it whole or not at all (catalog/installer.h), and checking an
// installed set against its manifest.json. Exit codes: 0, 2 usage (an unknown set, a catalog
// that does not parse, a bad mirror), 5 a download, check or verification failure.
// Thread-safety: called from main() only.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace ocr::cli {

struct ModelsOptions {
  bool list = false;
  bool pull = false;
  bool verify = false;
  bool json = false;               // list --json
  std::string dir;                 // --dir; empty: DefaultModelsDir()
  std::string catalog;             // --catalog FILE; empty: the built-in catalog
  std::string mirror;              // --mirror BASE (ONNXOCR_MODELS_MIRROR); empty: the URLs
  std::vector<std::string> names;  // pull NAME...
  std::string set_dir;             // verify DIR
};

CLI::App* AddModelsCommand(CLI::App& app, ModelsOptions& options);

// Returns the process exit code.
int Models(const ModelsOptions& options);

}  // namespace ocr::cli
