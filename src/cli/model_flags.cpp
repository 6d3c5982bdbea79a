#include "cli/model_flags.h"

#include <unistd.h>

namespace ocr::cli {
namespace {

std::filesystem::path ExecutableDir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

}  // namespace

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

  const std::filesystem::path exe_dir = ExecutableDir();
  const std::vector<std::filesystem::path> candidates = {
      exe_dir / ".." / ".." / "models" / "ppocrv4",  // build/release/onnxocr in a checkout
      std::filesystem::current_path() / "models" / "ppocrv4",
      "/models/ppocrv4",
  };
  std::error_code ec;
  for (const auto& c : candidates) {
    if (std::filesystem::is_directory(c, ec)) {
      return std::vector<ModelSpec>{{"ppocrv4", c.lexically_normal()}};
    }
  }
  return Status(StatusCode::kModelLoadFailed,
                "no model set given and models/ppocrv4 not found: run scripts/bootstrap or pass "
                "--models NAME=DIR");
}

}  // namespace ocr::cli
