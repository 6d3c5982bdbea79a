// A model set's manifest.json (spec/API.md section 1): which files are its parts and which family
// each comes from, and what every file of the set must hash to. Paths are relative to the set's
// folder and may reach into another set ("../ppocrv4/cls/cls.onnx").
//
//   {"family": "ppocrv6",
//    "det": {"path": "det/det.onnx"},
//    "rec": {"path": "rec/rec.onnx", "dictionary": "ppocrv6_tiny_dict.txt"},
//    "cls": {"path": "../ppocrv4/cls/cls.onnx", "family": "ppocrv4"},
//    "files": {"det/det.onnx": {"bytes": 1780590, "sha256": "193b...", "url": "https://..."}}}
//
// Keys it does not know (a quantizer's record of how it made the set) are kept, not read. A part
// left out takes the folder layout's file (det/det.onnx, rec/rec.onnx, cls/cls.onnx when present,
// the folder's dictionary). `files` is what `onnxocr models verify` checks; the loader does not.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "common/status.h"
#include "pipeline/model_family.h"

namespace ocr::pipeline {

struct ManifestPart {
  std::filesystem::path path;         // as written: relative to the set's folder
  std::optional<ModelFamily> family;  // the part's own; else the manifest's
  std::filesystem::path dictionary;   // rec and rec_second: as written; empty: the folder's
};

struct ManifestFile {
  std::int64_t bytes = -1;  // -1: not recorded
  std::string sha256;       // lower-case hex; empty: not recorded
  std::string url;          // where it was fetched from; empty: made here
};

struct ModelManifest {
  std::optional<ModelFamily> family;
  std::optional<ManifestPart> det;
  std::optional<ManifestPart> rec;
  std::optional<ManifestPart> cls;
  std::optional<ManifestPart> rec_second;
  std::map<std::string, ManifestFile> files;  // by path relative to the set's folder
  std::string extra_json;                     // the other keys, as a JSON object ("{}" when none)
};

inline constexpr const char* kManifestFileName = "manifest.json";

// Parses a manifest's text. `where` names it in messages. Errors: kModelLoadFailed naming the key
// at fault (not JSON, an unknown family, a part without "path", an absolute path).
Result<ModelManifest> ParseManifest(std::string_view text, const std::string& where);

// The manifest of the set in `dir`: nullopt when it has no manifest.json.
// Errors: as ParseManifest; an unreadable file.
Result<std::optional<ModelManifest>> ReadManifest(const std::filesystem::path& dir);

// The manifest as JSON text (indented, ending in a newline), the keys of extra_json after ours.
std::string ManifestJson(const ModelManifest& manifest);

}  // namespace ocr::pipeline
