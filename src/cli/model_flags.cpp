#include "cli/model_flags.h"

#include <unistd.h>

#include <algorithm>

#include "pipeline/model_manifest.h"

namespace ocr::cli {
namespace {

std::filesystem::path ExecutableDir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

std::vector<std::filesystem::path> ModelsDirCandidates() {
  return {
      ExecutableDir() / ".." / ".." / "models",  // build/release/onnxocr in a checkout
      std::filesystem::current_path() / "models",
      "/models",
  };
}

}  // namespace

std::filesystem::path DefaultModelsDir() {
  const std::vector<std::filesystem::path> candidates = ModelsDirCandidates();
  // The kernel resolves "build/release/../.." (through any symlink); so does the name returned.
  const auto resolved = [](const std::filesystem::path& dir) {
    std::error_code ec;
    std::filesystem::path real = std::filesystem::weakly_canonical(dir, ec);
    return ec ? dir : real;
  };
  for (const auto& c : candidates) {
    if (!DefaultSetsIn(c).empty())
      return resolved(c);
  }
  std::error_code ec;
  for (const auto& c : candidates) {
    if (std::filesystem::is_directory(c, ec))
      return resolved(c);
  }
  return candidates[1];
}

std::vector<ModelSpec> DefaultSetsIn(const std::filesystem::path& models_dir) {
  std::error_code ec;
  std::vector<ModelSpec> specs;
  if (!std::filesystem::is_directory(models_dir / kFp32SetName, ec))
    return specs;
  // The int8 set (simplified graphs, the detector int8) passes the accuracy gate and reads photos
  // and scanned pages 1.6 times as fast: docs/benchmarks/int8.md.
  const std::filesystem::path int8 = models_dir / kInt8SetName;
  if (std::filesystem::is_regular_file(int8 / "det" / "det.onnx", ec) &&
      std::filesystem::is_regular_file(int8 / "rec" / "rec.onnx", ec)) {
    specs.push_back({kInt8SetName, int8.lexically_normal()});
  }
  specs.push_back({kFp32SetName, (models_dir / kFp32SetName).lexically_normal()});
  // Then every other set a manifest names the family of (`onnxocr models pull` writes one), by
  // name, so a pulled set is served without listing every set with --models.
  std::vector<ModelSpec> pulled;
  for (const auto& entry : std::filesystem::directory_iterator(models_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory(ec) || name.starts_with('.') || name == kFp32SetName ||
        name == kInt8SetName)
      continue;
    const Result<std::optional<pipeline::ModelManifest>> manifest =
        pipeline::ReadManifest(entry.path());
    if (manifest.ok() && *manifest && (*manifest)->family)
      pulled.push_back({name, entry.path().lexically_normal()});
  }
  std::sort(pulled.begin(), pulled.end(),
            [](const ModelSpec& a, const ModelSpec& b) { return a.name < b.name; });
  specs.insert(specs.end(), pulled.begin(), pulled.end());
  return specs;
}

const ModelSpec& ReferenceSet(const std::vector<ModelSpec>& specs) {
  for (const ModelSpec& spec : specs) {
    if (spec.name == kFp32SetName)
      return spec;
  }
  return specs.front();
}

Result<ModelSpec> ParseModelSpec(const std::string& text) {
  ModelSpec spec;
  const auto eq = text.find('=');
  if (eq == std::string::npos) {
    spec.dir = text;
    spec.name = std::filesystem::path(text).lexically_normal().filename().string();
    if (spec.name.empty())
      spec.name = std::filesystem::path(text).parent_path().filename();
  } else {
    spec.name = text.substr(0, eq);
    spec.dir = text.substr(eq + 1);
  }
  if (spec.name.empty() || spec.dir.empty()) {
    return InvalidArgument("--models expects NAME=DIR, got '" + text + "'");
  }
  return spec;
}

Result<std::vector<ModelSpec>> ResolveModelSpecs(const std::vector<std::string>& flags) {
  std::vector<ModelSpec> specs;
  for (const auto& f : flags) {
    OCR_ASSIGN_OR_RETURN(ModelSpec spec, ParseModelSpec(f));
    for (const auto& s : specs) {
      if (s.name == spec.name)
        return InvalidArgument("model set '" + spec.name + "' given twice");
    }
    specs.push_back(std::move(spec));
  }
  if (!specs.empty())
    return specs;

  std::vector<ModelSpec> found = DefaultSetsIn(DefaultModelsDir());
  if (!found.empty())
    return found;
  return Status(StatusCode::kModelLoadFailed,
                "no model set given and models/ppocrv4 not found: run scripts/bootstrap or pass "
                "--models NAME=DIR");
}

}  // namespace ocr::cli
