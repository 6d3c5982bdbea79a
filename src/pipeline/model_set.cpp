#include "pipeline/model_set.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "common/sha256.h"
#include "common/unicode_fold.h"
#include "pipeline/model_manifest.h"

namespace ocr::pipeline {
namespace {

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

namespace {

// The file a part names: the manifest's path joined to the set's folder, else the layout's.
std::filesystem::path PartFile(const std::filesystem::path& dir,
                               const std::optional<ManifestPart>& part,
                               const std::filesystem::path& layout) {
  return (dir / (part ? part->path : layout)).lexically_normal();
}

Result<std::unique_ptr<engine::Model>> LoadPart(const engine::Runtime& runtime,
                                                const std::filesystem::path& file,
                                                const engine::SessionConfig& config,
                                                ModelPart& part) {
  part.file = file;
  OCR_ASSIGN_OR_RETURN(std::unique_ptr<engine::Model> model,
                       engine::LoadOrtModel(runtime, file, config));
  // Loaded, so readable: a failure here is the disk's.
  OCR_ASSIGN_OR_RETURN(part.sha256, Sha256OfFile(file));
  return model;
}

// The recognizer's class count, from its declared output or, when that is dynamic, one blank
// line's.
Result<std::int64_t> ClassCount(const engine::Model& rec, int height, int fixed_width) {
  const auto& out = rec.output_shape();
  if (out.size() == 3 && out[2] > 0)
    return out[2];
  engine::Tensor probe;
  const int width = fixed_width > 0 ? fixed_width : 320;
  probe.shape = {1, 3, height, width};
  probe.data.assign(size_t{3} * static_cast<size_t>(height) * static_cast<size_t>(width), 0.0f);
  auto result = rec.Run(probe);
  if (!result.ok() || result->shape.size() != 3) {
    return LoadFailed(rec.path() + ": cannot determine the class count (expected an " +
                      "output of shape [N,T,C])");
  }
  return result->shape[2];
}

}  // namespace

Result<std::unique_ptr<ModelSet>> LoadModelSet(const engine::Runtime& runtime, std::string name,
                                               const std::filesystem::path& dir,
                                               const engine::SessionConfig& config) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return LoadFailed("model set '" + name + "': folder " + dir.string() + " not found");
  }
  OCR_ASSIGN_OR_RETURN(const std::optional<ModelManifest> manifest, ReadManifest(dir));
  const ModelManifest none;
  const ModelManifest& m = manifest ? *manifest : none;
  if (m.rec_second) {
    return LoadFailed((dir / kManifestFileName).string() +
                      ": rec_second (a second recognizer) is not read by this version; remove it");
  }
  auto set = std::make_unique<ModelSet>();
  set->name = std::move(name);
  set->dir = dir;

  OCR_ASSIGN_OR_RETURN(
      set->det, LoadPart(runtime, PartFile(dir, m.det, "det/det.onnx"), config, set->det_part));
  OCR_RETURN_IF_ERROR(CheckImageInput(*set->det, false, false));

  OCR_ASSIGN_OR_RETURN(
      set->rec, LoadPart(runtime, PartFile(dir, m.rec, "rec/rec.onnx"), config, set->rec_part));
  OCR_RETURN_IF_ERROR(CheckImageInput(*set->rec, true, false));
  set->rec_height = static_cast<int>(set->rec->input_shape()[2]);
  set->rec_width = static_cast<int>(std::max<std::int64_t>(0, set->rec->input_shape()[3]));

  const std::filesystem::path cls_file = PartFile(dir, m.cls, "cls/cls.onnx");
  // A classifier the manifest names must be there; the layout's is optional.
  if (m.cls || std::filesystem::exists(cls_file, ec)) {
    OCR_ASSIGN_OR_RETURN(set->cls, LoadPart(runtime, cls_file, config, set->cls_part));
    OCR_RETURN_IF_ERROR(CheckImageInput(*set->cls, false, false));
    // PP-OCRv6 has no classifier of its own, so a classifier's family is its part's, else the one
    // its input says (the set's family is its detector's and recognizer's).
    const auto& shape = set->cls->input_shape();
    set->cls_part.family =
        m.cls && m.cls->family ? *m.cls->family : ClassifierFamily(shape[2], shape[3]);
    // Fixed-size exports (PP-LCNet: 80x160) say their size; exports with dynamic axes (the
    // mobile v2 classifier of the default set) take their family's.
    const FamilySettings& family = SettingsOf(set->cls_part.family);
    set->cls_height = shape[2] > 0 ? static_cast<int>(shape[2]) : family.cls_height;
    set->cls_width = shape[3] > 0 ? static_cast<int>(shape[3]) : family.cls_width;
  }

  if (m.rec && !m.rec->dictionary.empty()) {
    set->dictionary_path = (dir / m.rec->dictionary).lexically_normal();
  } else {
    OCR_ASSIGN_OR_RETURN(set->dictionary_path, FindDictionary(dir));
  }
  OCR_ASSIGN_OR_RETURN(std::vector<std::string> lines, ReadDictionary(set->dictionary_path));
  OCR_ASSIGN_OR_RETURN(set->dictionary_sha256, Sha256OfFile(set->dictionary_path));
  OCR_ASSIGN_OR_RETURN(const std::int64_t classes,
                       ClassCount(*set->rec, set->rec_height, set->rec_width));
  OCR_RETURN_IF_ERROR(
      CheckClassCount(classes, lines.size(), set->rec->path(), set->dictionary_path));

  // A part's own family, else the manifest's, else (no manifest) the recognizer's, by its class
  // count and dictionary; a detector without one comes with its recognizer.
  const std::optional<ModelFamily> rec_family = m.rec && m.rec->family ? m.rec->family : m.family;
  set->rec_part.family =
      rec_family.value_or(RecognizerFamily(classes, set->dictionary_path.filename().string()));
  const std::optional<ModelFamily> det_family = m.det && m.det->family ? m.det->family : m.family;
  set->det_part.family = det_family.value_or(set->rec_part.family);

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
