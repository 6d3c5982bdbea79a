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

// The model sets to load: the --models values when given, else the default set "ppocrv4" found
// next to the binary's source tree (models/ppocrv4), in the working directory, or in
// /models/ppocrv4 (the container image).
Result<std::vector<ModelSpec>> ResolveModelSpecs(const std::vector<std::string>& flags);

}  // namespace ocr::cli
