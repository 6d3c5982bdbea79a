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

// The models folder: the first of models/ beside the binary's source tree (build/<preset>/onnxocr
// in a checkout), models/ in the working directory and /models (the container image) that holds
// the default sets; else the first of them that exists; else models/ in the working directory.
// Where ResolveModelSpecs finds the default sets, and where `onnxocr models` installs sets.
std::filesystem::path DefaultModelsDir();

// The fp32 set and its int8 copy, by the names the default sets take.
inline constexpr const char* kFp32SetName = "ppocrv4";
inline constexpr const char* kInt8SetName = "ppocrv4-int8";

// The default sets in `models_dir`: "ppocrv4-int8" first (the default) when
// models_dir/ppocrv4-int8 has its det and rec models (made by scripts/quantize-models), then
// "ppocrv4" (fp32), the default when there is no int8 set, then each other folder whose
// manifest.json names a family (the sets `onnxocr models pull` installs), by name. Empty when
// there is no ppocrv4.
std::vector<ModelSpec> DefaultSetsIn(const std::filesystem::path& models_dir);

// The set --reference reads with when no --model names one: the reference pipeline's own fp32
// models ("ppocrv4") when the default sets hold it, else the first set.
// REQUIRES: `specs` is not empty.
const ModelSpec& ReferenceSet(const std::vector<ModelSpec>& specs);

}  // namespace ocr::cli
