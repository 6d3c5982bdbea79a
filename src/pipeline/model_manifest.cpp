#include "pipeline/model_manifest.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ocr::pipeline {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kParts[] = {"det", "rec", "cls", "rec_second"};
constexpr std::string_view kOurKeys[] = {"family", "det", "rec", "cls", "rec_second", "files"};

Status Bad(const std::string& where, const std::string& what) {
  return {StatusCode::kModelLoadFailed, where + ": " + what};
}

Result<std::optional<ModelFamily>> FamilyAt(const Json& object, const std::string& where,
                                            const std::string& key) {
  if (!object.contains("family"))
    return std::optional<ModelFamily>();
  const Json& value = object["family"];
  const std::optional<ModelFamily> family =
      value.is_string() ? ParseModelFamily(value.get<std::string>()) : std::nullopt;
  if (!family) {
    return Bad(where,
               key + " is " + value.dump() + ", expected " + std::string(ModelFamilyNames()));
  }
  return family;
}

Result<std::filesystem::path> RelativePath(const Json& value, const std::string& where,
                                           const std::string& key) {
  if (!value.is_string() || value.get<std::string>().empty())
    return Bad(where, key + " must be a path relative to the set's folder");
  std::filesystem::path path = value.get<std::string>();
  if (path.is_absolute()) {
    return Bad(where, key + " is " + path.string() +
                          ": paths are relative to the set's folder, so a set can be moved");
  }
  return path;
}

Result<ManifestPart> PartAt(const Json& value, const std::string& where, std::string_view name) {
  const std::string key(name);
  if (!value.is_object() || !value.contains("path"))
    return Bad(where, key + " must be an object with a \"path\"");
  ManifestPart part;
  OCR_ASSIGN_OR_RETURN(part.path, RelativePath(value["path"], where, key + ".path"));
  OCR_ASSIGN_OR_RETURN(part.family, FamilyAt(value, where, key + ".family"));
  if (value.contains("dictionary")) {
    if (name != "rec" && name != "rec_second")
      return Bad(where, key + " takes no dictionary: only recognizers have one");
    OCR_ASSIGN_OR_RETURN(part.dictionary,
                         RelativePath(value["dictionary"], where, key + ".dictionary"));
  }
  return part;
}

Result<ManifestFile> FileAt(const Json& value, const std::string& where, const std::string& key) {
  if (!value.is_object())
    return Bad(where, "files." + key + " must be an object");
  ManifestFile file;
  if (value.contains("bytes")) {
    if (!value["bytes"].is_number_integer() || value["bytes"].get<std::int64_t>() < 0)
      return Bad(where, "files." + key + ".bytes must be a whole number of bytes");
    file.bytes = value["bytes"].get<std::int64_t>();
  }
  if (value.contains("sha256")) {
    const Json& sha = value["sha256"];
    if (!sha.is_string() || sha.get<std::string>().size() != 64 ||
        sha.get<std::string>().find_first_not_of("0123456789abcdef") != std::string::npos) {
      return Bad(where, "files." + key + ".sha256 must be 64 lower-case hex digits");
    }
    file.sha256 = sha.get<std::string>();
  }
  if (value.contains("url")) {
    if (!value["url"].is_string())
      return Bad(where, "files." + key + ".url must be text");
    file.url = value["url"].get<std::string>();
  }
  return file;
}

nlohmann::ordered_json PartJson(const ManifestPart& part) {
  nlohmann::ordered_json j = {{"path", part.path.generic_string()}};
  if (part.family)
    j["family"] = std::string(ModelFamilyName(*part.family));
  if (!part.dictionary.empty())
    j["dictionary"] = part.dictionary.generic_string();
  return j;
}

}  // namespace

Result<ModelManifest> ParseManifest(std::string_view text, const std::string& where) {
  const Json json = Json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object())
    return Bad(where, "not a JSON object");
  ModelManifest manifest;
  OCR_ASSIGN_OR_RETURN(manifest.family, FamilyAt(json, where, "family"));
  for (std::string_view name : kParts) {
    const auto it = json.find(std::string(name));
    if (it == json.end())
      continue;
    OCR_ASSIGN_OR_RETURN(ManifestPart part, PartAt(*it, where, name));
    (name == "det"   ? manifest.det
     : name == "rec" ? manifest.rec
     : name == "cls" ? manifest.cls
                     : manifest.rec_second) = std::move(part);
  }
  if (json.contains("files")) {
    if (!json["files"].is_object())
      return Bad(where, "files must be an object keyed by path");
    for (const auto& [key, value] : json["files"].items()) {
      OCR_RETURN_IF_ERROR(RelativePath(key, where, "files." + key).status());
      OCR_ASSIGN_OR_RETURN(manifest.files[key], FileAt(value, where, key));
    }
  }
  Json extra = Json::object();
  for (const auto& [key, value] : json.items()) {
    if (std::find(std::begin(kOurKeys), std::end(kOurKeys), key) == std::end(kOurKeys))
      extra[key] = value;
  }
  manifest.extra_json = extra.dump();
  return manifest;
}

Result<std::optional<ModelManifest>> ReadManifest(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / kManifestFileName;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return std::optional<ModelManifest>();
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in)
    return Bad(path.string(), "cannot be read");
  OCR_ASSIGN_OR_RETURN(ModelManifest manifest, ParseManifest(text.str(), path.string()));
  return std::optional<ModelManifest>(std::move(manifest));
}

std::string ManifestJson(const ModelManifest& manifest) {
  // ordered_json keeps our keys first, in the order the contract writes them.
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  if (manifest.family)
    j["family"] = std::string(ModelFamilyName(*manifest.family));
  const std::pair<std::string_view, const std::optional<ManifestPart>*> parts[] = {
      {"det", &manifest.det},
      {"rec", &manifest.rec},
      {"cls", &manifest.cls},
      {"rec_second", &manifest.rec_second}};
  for (const auto& [name, part] : parts) {
    if (*part)
      j[std::string(name)] = PartJson(**part);
  }
  if (!manifest.files.empty()) {
    nlohmann::ordered_json files = nlohmann::ordered_json::object();
    for (const auto& [path, file] : manifest.files) {
      nlohmann::ordered_json f = nlohmann::ordered_json::object();
      if (file.bytes >= 0)
        f["bytes"] = file.bytes;
      if (!file.sha256.empty())
        f["sha256"] = file.sha256;
      if (!file.url.empty())
        f["url"] = file.url;
      files[path] = std::move(f);
    }
    j["files"] = std::move(files);
  }
  const auto extra = nlohmann::ordered_json::parse(
      manifest.extra_json.empty() ? "{}" : manifest.extra_json, nullptr, false);
  if (extra.is_object()) {
    for (const auto& [key, value] : extra.items())
      j[key] = value;
  }
  return j.dump(1) + "\n";
}

}  // namespace ocr::pipeline
