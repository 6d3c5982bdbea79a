// The model catalog: files a publisher serves (URL at a pinned revision, size, sha256) and the
// named model sets `onnxocr models pull` builds from them (which file goes where in the set's
// folder, and the set's manifest.json parts and family). The built-in catalog is
// src/catalog/catalog.json, embedded into the binary; `--catalog FILE` reads one of the same form
// (a company's own). Both go through Catalog::Parse:
//
//   {"catalog_version": 1,
//    "description": "...",                                  optional
//    "files": {"PP-OCRv6_tiny_det": {
//        "url": "https://huggingface.co/PaddlePaddle/.../inference.onnx",
//        "bytes": 1780590,                                  optional: checked when given
//        "sha256": "193b...",                               64 lower-case hex digits
//        "lines": 6904,                                     a dictionary's line count
//        "description": "..."}},                            optional
//    "sets": {"ppocrv6-tiny": {
//        "description": "...",
//        "files": {"det/det.onnx": "PP-OCRv6_tiny_det"},    install path -> file id
//        "manifest": {"family": "ppocrv6", "det": {"path": "det/det.onnx"}, ...},
//        "optional_parts": ["cls"],                         written only when their file exists
//        "needs": ["ppocrv6-tiny"]}}}                       sets pulled first
//
// Every file has a sha256, or else a line count (a dictionary whose digest is not pinned: its
// line count must fit the recognizer, and the digest it got is recorded in the manifest).
// "manifest" is the set's manifest.json without "files" (the installer writes those), read by
// pipeline::ParseManifest, so a catalog cannot describe a set the loader would refuse. A part
// inside the set must be one of its files; a part in another catalog set ("../ppocrv6-tiny/...")
// must be one of that set's files and the set one of its needs; a part elsewhere
// ("../ppocrv4-int8/...", made by scripts/build) must exist when the set is pulled, unless it is
// optional. Unknown keys are errors: a misspelt "sha256" must not turn a check off.
// Thread-safety: a Catalog is an immutable value after Parse.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "pipeline/model_manifest.h"

namespace ocr::catalog {

struct CatalogFile {
  std::string id;           // its key in "files"
  std::string url;          // where the publisher serves it (http, https or file)
  std::int64_t bytes = -1;  // -1: not pinned
  std::string sha256;       // lower-case hex; empty: not pinned (then `lines` is)
  std::int64_t lines = -1;  // -1: not checked
  std::string description;
};

struct SetFile {
  std::string path;     // in the set's folder, relative ("det/det.onnx")
  std::string file_id;  // a key of the catalog's files
};

struct CatalogSet {
  std::string name;  // the folder it installs as: [a-z0-9][a-z0-9._-]*
  std::string description;
  std::vector<SetFile> files;               // by path
  pipeline::ModelManifest manifest;         // its parts and family; `files` empty
  std::vector<std::string> optional_parts;  // "det", "rec", "cls" or "rec_second"
  std::vector<std::string> needs;           // other catalog sets, pulled first
};

class Catalog {
 public:
  // Parses a catalog's JSON text. `where` names it in messages and is what where() returns.
  // Errors: kInvalidArgument naming the key at fault.
  static Result<Catalog> Parse(std::string_view text, const std::string& where);

  // The catalog built into the binary (src/catalog/catalog.json).
  static Result<Catalog> BuiltIn();

  // The catalog in the file at `path`. Errors: kNotFound when it cannot be read; as Parse.
  static Result<Catalog> Load(const std::filesystem::path& path);

  const std::string& where() const { return where_; }

  const std::string& description() const { return description_; }

  // Sets in name order.
  const std::vector<CatalogSet>& sets() const { return sets_; }

  // nullptr when there is none of that name.
  const CatalogSet* FindSet(std::string_view name) const;
  const CatalogFile* FindFile(std::string_view id) const;

  // The catalog file a set installs. REQUIRES: `file` is one of this catalog's sets' files.
  const CatalogFile& FileOf(const SetFile& file) const;

  // "a, b or c": the set names, for messages.
  std::string SetNames() const;

 private:
  std::string where_;
  std::string description_;
  std::map<std::string, CatalogFile, std::less<>> files_;
  std::vector<CatalogSet> sets_;
};

// The label a set's manifest part has ("det", "rec", "cls", "rec_second"), with its value.
struct NamedPart {
  std::string_view name;
  const pipeline::ManifestPart* part;
};

// The parts `manifest` names, in the order det, rec, cls, rec_second.
std::vector<NamedPart> PartsOf(const pipeline::ModelManifest& manifest);

}  // namespace ocr::catalog
