#include "pipeline/model_set.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "common/unicode_fold.h"

namespace ocr::pipeline {
namespace {

constexpr int kDynamicClsHeight = 48;
constexpr int kDynamicClsWidth = 192;

Status LoadFailed(std::string message) {
  return {StatusCode::kModelLoadFailed, std::move(message)};
}

std::string Dim(std::int64_t d) {
  return d < 0 ? "dynamic" : std::to_string(d);
}

// [N,3,H,W] with H (and for cls, W) static: the form of every PP-OCR det/cls/rec input.
Status CheckImageInput(const engine::Model& model, bool need_static_height,
                       bool need_static_width) {
  const auto& s = model.input_shape();
  if (s.size() != 4 || (s[1] != 3 && s[1] != -1)) {
    return LoadFailed(model.path() + ": expected an input of shape [N,3,H,W]");
  }
  if (need_static_height && s[2] <= 0) {
    return LoadFailed(model.path() + ": input height is " + Dim(s[2]) + ", expected a fixed size");
  }
  if (need_static_width && s[3] <= 0) {
    return LoadFailed(model.path() + ": input width is " + Dim(s[3]) + ", expected a fixed size");
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<std::string>> ReadDictionary(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return LoadFailed("cannot read dictionary " + path.string());
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    lines.push_back(line);
  }
  if (lines.empty())
    return LoadFailed("dictionary " + path.string() + " is empty");
  return lines;
}

Result<std::filesystem::path> FindDictionary(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> candidates;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".txt") {
      candidates.push_back(entry.path());
    }
  }
  if (candidates.empty()) {
    return LoadFailed("no dictionary (*.txt) in " + dir.string() +
                      ": put the recognizer's character list, e.g. ppocr_keys_v1.txt, there");
  }
  if (candidates.size() == 1)
    return candidates[0];
  std::vector<std::filesystem::path> named;
  for (const auto& c : candidates) {
    const std::string f = c.filename().string();
    if (f.find("dict") != std::string::npos || f.find("keys") != std::string::npos) {
      named.push_back(c);
    }
  }
  if (named.size() == 1)
    return named[0];
  std::string list;
  for (const auto& c : candidates)
    list += (list.empty() ? "" : ", ") + c.filename().string();
  return LoadFailed("several dictionaries in " + dir.string() + " (" + list +
                    "): keep exactly one *.txt there");
}

Status CheckClassCount(std::int64_t classes, size_t dictionary_lines,
                       const std::filesystem::path& rec_path,
                       const std::filesystem::path& dictionary_path) {
  if (classes == static_cast<std::int64_t>(dictionary_lines) + 2)
    return Status::Ok();
  return LoadFailed("recognizer " + rec_path.string() + " has " + std::to_string(classes) +
                    " classes but dictionary " + dictionary_path.string() + " has " +
                    std::to_string(dictionary_lines) +
                    " lines; they must satisfy classes = lines + 2" +
                    " (blank and space): use the dictionary that belongs to this model");
}

Result<std::unique_ptr<ModelSet>> LoadModelSet(const engine::Runtime& runtime, std::string name,
                                               const std::filesystem::path& dir,
                                               const engine::SessionConfig& config) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return LoadFailed("model set '" + name + "': folder " + dir.string() + " not found");
  }
  auto set = std::make_unique<ModelSet>();
  set->name = std::move(name);
  set->dir = dir;

  OCR_ASSIGN_OR_RETURN(set->det, engine::LoadOrtModel(runtime, dir / "det" / "det.onnx", config));
  OCR_RETURN_IF_ERROR(CheckImageInput(*set->det, false, false));

  OCR_ASSIGN_OR_RETURN(set->rec, engine::LoadOrtModel(runtime, dir / "rec" / "rec.onnx", config));
  OCR_RETURN_IF_ERROR(CheckImageInput(*set->rec, true, false));
  set->rec_height = static_cast<int>(set->rec->input_shape()[2]);
  set->rec_width = static_cast<int>(std::max<std::int64_t>(0, set->rec->input_shape()[3]));

  if (std::filesystem::exists(dir / "cls" / "cls.onnx", ec)) {
    OCR_ASSIGN_OR_RETURN(set->cls, engine::LoadOrtModel(runtime, dir / "cls" / "cls.onnx", config));
    OCR_RETURN_IF_ERROR(CheckImageInput(*set->cls, false, false));
    // Fixed-size exports (PP-LCNet: 80x160) say their size; exports with dynamic axes (the
    // mobile v2 classifier of the default set) were trained at 48x192.
    const auto& shape = set->cls->input_shape();
    set->cls_height = shape[2] > 0 ? static_cast<int>(shape[2]) : kDynamicClsHeight;
    set->cls_width = shape[3] > 0 ? static_cast<int>(shape[3]) : kDynamicClsWidth;
  }

  OCR_ASSIGN_OR_RETURN(set->dictionary_path, FindDictionary(dir));
  OCR_ASSIGN_OR_RETURN(std::vector<std::string> lines, ReadDictionary(set->dictionary_path));

  std::int64_t classes = -1;
  const auto& out = set->rec->output_shape();
  if (out.size() == 3)
    classes = out[2];
  if (classes <= 0) {
    // The class dimension is not declared: run one blank line to learn it.
    engine::Tensor probe;
    const int width = set->rec_width > 0 ? set->rec_width : 320;
    probe.shape = {1, 3, set->rec_height, width};
    probe.data.assign(size_t{3} * static_cast<size_t>(set->rec_height) * static_cast<size_t>(width),
                      0.0f);
    auto result = set->rec->Run(probe);
    if (!result.ok() || result->shape.size() != 3) {
      return LoadFailed(set->rec->path() + ": cannot determine the class count (expected an " +
                        "output of shape [N,T,C])");
    }
    classes = result->shape[2];
  }
  OCR_RETURN_IF_ERROR(
      CheckClassCount(classes, lines.size(), set->rec->path(), set->dictionary_path));

  set->charset.reserve(lines.size() + 2);
  set->charset.emplace_back();
  // Dictionaries hold a few compatibility ideographs (PP-OCRv4's: U+F92C and U+F979); a class
  // read as one answers the character it stands for, as a text layer's does (common/unicode_fold).
  for (const std::string& l : lines)
    set->charset.push_back(FoldCompatibilityIdeographs(l));
  set->charset.emplace_back(" ");
  return set;
}

}  // namespace ocr::pipeline
