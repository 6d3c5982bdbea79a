// The --models NAME=DIR flag shared by every subcommand, and where the default set is found.
// Thread-safety: call from main() only.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/status.h"

namespace ocr::cli {

struct ModelSpec {
  std::string name;
  std::filesystem::path dir;
};

// Parses "NAME=DIR" (a bare DIR is named after its folder). kInvalidArgument on empty parts.
Result<ModelSpec> ParseModelSpec(const std::string& text);

// The model sets to load: the --models values when given, else the default sets of the first
// models/ folder found next to the binary's source tree, in the working directory, or at
// /models (the container image).
Result<std::vector<ModelSpec>> ResolveModelSpecs(const std::vector<std::string>& flags);

// The default sets in `models_dir`: "ppocrv4" (the default) when models_dir/ppocrv4 is a folder,
// then "ppocrv4-int8" when models_dir/ppocrv4-int8 has its det and rec models (made by
// scripts/quantize-models). Empty when there is no ppocrv4.
std::vector<ModelSpec> DefaultSetsIn(const std::filesystem::path& models_dir);

}  // namespace ocr::cli
