#include "support/test_paths.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ocr::testing {

std::filesystem::path SourceDir() {
  return OCR_SOURCE_DIR;
}

std::filesystem::path BinaryDir() {
  return OCR_BINARY_DIR;
}

std::filesystem::path DefaultModelDir() {
  return SourceDir() / "models" / "ppocrv4";
}

std::optional<std::filesystem::path> SharedTestdata() {
  std::filesystem::path dir;
  if (const char* env = std::getenv("OCR_SHARED_TESTDATA"); env != nullptr && *env != '\0') {
    dir = env;
  } else {
    dir = SourceDir().parent_path() / "shared" / "testdata";
  }
  if (std::filesystem::is_directory(dir / "real"))
    return dir;
  return std::nullopt;
}

std::optional<std::filesystem::path> SharedV6TinySet() {
  std::filesystem::path dir;
  if (const char* env = std::getenv("OCR_SHARED_MODELS"); env != nullptr && *env != '\0') {
    dir = env;
  } else {
    dir = SourceDir().parent_path() / "shared" / "models";
  }
  dir /= "ppocrv6-tiny";
  if (std::filesystem::is_regular_file(dir / "det" / "det.onnx") &&
      std::filesystem::is_regular_file(dir / "rec" / "rec.onnx"))
    return dir;
  return std::nullopt;
}

std::string ReadFileOrDie(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read " + path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace ocr::testing
