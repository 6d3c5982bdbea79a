#include "support/test_paths.h"

#include <unistd.h>

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
  namespace fs = std::filesystem;
  fs::path shared;
  if (const char* env = std::getenv("OCR_SHARED_MODELS"); env != nullptr && *env != '\0') {
    shared = env;
  } else {
    shared = SourceDir().parent_path() / "shared" / "models";
  }
  shared /= "ppocrv6-tiny";
  if (!fs::is_regular_file(shared / "det" / "det.onnx") ||
      !fs::is_regular_file(shared / "rec" / "rec.onnx"))
    return std::nullopt;
  // The folder as a user lays it out: ../shared's det, rec and dictionary, v4's classifier beside
  // them (PP-OCRv6 has no tiny one), each linked, in a folder of this test process.
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("ppocrv6-tiny-" + std::to_string(::getpid()));
  if (!fs::exists(dir / "cls" / "cls.onnx")) {
    fs::remove_all(dir);
    for (const char* sub : {"det", "rec", "cls"})
      fs::create_directories(dir / sub);
    fs::create_symlink(shared / "det" / "det.onnx", dir / "det" / "det.onnx");
    fs::create_symlink(shared / "rec" / "rec.onnx", dir / "rec" / "rec.onnx");
    fs::create_symlink(shared / "ppocrv6_tiny_dict.txt", dir / "ppocrv6_tiny_dict.txt");
    fs::create_symlink(DefaultModelDir() / "cls" / "cls.onnx", dir / "cls" / "cls.onnx");
  }
  return dir;
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
