// A model set: det, optional cls, rec and the dictionary, loaded from a folder laid out as in
// spec/API.md section 1 (<set>/det/det.onnx, <set>/rec/rec.onnx, <set>/cls/cls.onnx, <set>/*.txt)
// or named by its manifest.json (model_manifest.h), whose parts may come from other sets and
// other families. Input sizes and the class count are read from the models; each part's family
// (model_family.h) is the one its manifest names, else the one its recognizer's class count says.
// Thread-safety: immutable after loading; share one set between all workers.
#pragma once

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "engine/model.h"
#include "engine/ort_model.h"
#include "pipeline/model_family.h"

namespace ocr::pipeline {

// What a set's model file is, for the family settings it is read with and for /info.
struct ModelPart {
  std::filesystem::path file;  // as loaded: the set's folder joined with its manifest's path
  ModelFamily family = ModelFamily::kPpocrV4;
  std::string sha256;
};

struct ModelSet {
  std::string name;
  std::filesystem::path dir;
  std::unique_ptr<engine::Model> det;
  std::unique_ptr<engine::Model> cls;  // null when the set has no classifier
  std::unique_ptr<engine::Model> rec;
  ModelPart det_part;
  ModelPart cls_part;  // empty when the set has no classifier
  ModelPart rec_part;
  std::filesystem::path dictionary_path;
  std::string dictionary_sha256;
  // Class k's text: [0] the CTC blank (""), then the dictionary lines, then " ".
  std::vector<std::string> charset;
  int cls_height = 0;
  int cls_width = 0;
  int rec_height = 0;
  int rec_width = 0;  // 0 when the recognizer takes any width
};

// Loads and validates a set. Errors: kModelLoadFailed with a message naming the file at fault
// (missing det/rec, unreadable or malformed ONNX, a dictionary that does not fit the recognizer, a
// manifest that does not parse or names a file that is not there).
Result<std::unique_ptr<ModelSet>> LoadModelSet(const engine::Runtime& runtime, std::string name,
                                               const std::filesystem::path& dir,
                                               const engine::SessionConfig& config);

// Lines of a dictionary file (one character per line, "\r\n" or "\n"), as the reference reads it.
Result<std::vector<std::string>> ReadDictionary(const std::filesystem::path& path);

// The dictionary file of a set: the only *.txt in `dir`; with several, the one whose name
// contains "dict" or "keys"; ambiguity or absence is an error naming the candidates.
Result<std::filesystem::path> FindDictionary(const std::filesystem::path& dir);

// A recognizer with `classes` outputs needs exactly classes - 2 dictionary lines (blank and space
// are added). One off gives plausible garbage, so anything else is refused.
Status CheckClassCount(std::int64_t classes, size_t dictionary_lines,
                       const std::filesystem::path& rec_path,
                       const std::filesystem::path& dictionary_path);

}  // namespace ocr::pipeline
