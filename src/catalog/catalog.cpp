#include "catalog/catalog.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "catalog/fetcher.h"
#include "catalog/internal/embedded_catalog.h"
#include "catalog/internal/format.h"

namespace ocr::catalog {
namespace {

using Json = nlohmann::json;
using internal::Cat;

constexpr std::array<std::string_view, 4> kPartNames = {"det", "rec", "cls", "rec_second"};

Status Bad(const std::string& where, const std::string& what) {
  return InvalidArgument(where + ": " + what);
}

// Refuses keys of `object` outside `known`.
Status OnlyKeys(const Json& object, std::initializer_list<std::string_view> known,
                const std::string& where, const std::string& key) {
  for (const auto& [name, value] : object.items()) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string list;
      for (std::string_view k : known) {
        list += list.empty() ? "" : ", ";
        list += k;
      }
      return Bad(where, Cat({key, key.empty() ? "" : ".", name, " is not a key of the catalog (",
                             key.empty() ? "the top level" : key, " takes ", list, ")"}));
    }
  }
  return Status::Ok();
}

Result<std::string> StringAt(const Json& object, std::string_view name, const std::string& where,
                             const std::string& key, bool required) {
  const auto it = object.find(std::string(name));
  if (it == object.end()) {
    if (required)
      return Bad(where, key + "." + std::string(name) + " is missing");
    return std::string();
  }
  if (!it->is_string())
    return Bad(where, key + "." + std::string(name) + " must be text");
  return it->get<std::string>();
}

Result<std::int64_t> CountAt(const Json& object, std::string_view name, const std::string& where,
                             const std::string& key) {
  const auto it = object.find(std::string(name));
  if (it == object.end())
    return std::int64_t{-1};
  if (!it->is_number_integer() || it->get<std::int64_t>() < 0)
    return Bad(where, key + "." + std::string(name) + " must be a whole number, 0 or more");
  return it->get<std::int64_t>();
}

Result<CatalogFile> FileAt(const std::string& id, const Json& value, const std::string& where) {
  const std::string key = "files." + id;
  if (!value.is_object())
    return Bad(where, key + " must be an object");
  OCR_RETURN_IF_ERROR(
      OnlyKeys(value, {"url", "bytes", "sha256", "lines", "description"}, where, key));
  CatalogFile file;
  file.id = id;
  OCR_ASSIGN_OR_RETURN(file.url, StringAt(value, "url", where, key, true));
  if (const Result<UrlParts> url = SplitUrl(file.url); !url.ok())
    return Bad(where, key + ".url: " + url.status().message());
  OCR_ASSIGN_OR_RETURN(file.bytes, CountAt(value, "bytes", where, key));
  OCR_ASSIGN_OR_RETURN(file.lines, CountAt(value, "lines", where, key));
  OCR_ASSIGN_OR_RETURN(file.sha256, StringAt(value, "sha256", where, key, false));
  OCR_ASSIGN_OR_RETURN(file.description, StringAt(value, "description", where, key, false));
  if (value.contains("sha256") &&
      (file.sha256.size() != 64 ||
       file.sha256.find_first_not_of("0123456789abcdef") != std::string::npos)) {
    return Bad(where, key + ".sha256 must be 64 lower-case hex digits");
  }
  if (file.sha256.empty() && file.lines < 0) {
    return Bad(where, key +
                          " has neither a sha256 nor a line count (\"lines\", for a dictionary "
                          "whose digest is not pinned): it could not be checked");
  }
  return file;
}

// An install path: relative, normal ("det/det.onnx"), inside the set, not its manifest.
Status CheckInstallPath(const std::string& path, const std::string& where, const std::string& key) {
  const std::filesystem::path p(path);
  const bool normal = !path.empty() && !p.is_absolute() && p.lexically_normal() == p &&
                      path.back() != '/' &&
                      std::none_of(p.begin(), p.end(), [](const std::filesystem::path& part) {
                        return part == ".." || part == "." || part.string().front() == '.';
                      });
  if (!normal) {
    return Bad(where, key + " '" + path +
                          "' must be a plain relative path inside the set's folder (no '..', no "
                          "leading dots, no '/' at either end)");
  }
  if (path == pipeline::kManifestFileName)
    return Bad(where, key + ": " + path + " is the manifest the installer writes");
  return Status::Ok();
}

bool ValidSetName(std::string_view name) {
  if (name.empty() || name.size() > 100)
    return false;
  const auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(name.front()))
    return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char c) { return alnum(c) || c == '.' || c == '_' || c == '-'; });
}

Result<std::vector<std::string>> NamesAt(const Json& object, std::string_view name,
                                         const std::string& where, const std::string& key) {
  std::vector<std::string> names;
  const auto it = object.find(std::string(name));
  if (it == object.end())
    return names;
  const std::string at = key + "." + std::string(name);
  if (!it->is_array())
    return Bad(where, at + " must be a list of names");
  for (const Json& entry : *it) {
    if (!entry.is_string())
      return Bad(where, at + " must be a list of names");
    names.push_back(entry.get<std::string>());
  }
  return names;
}

Result<CatalogSet> SetAt(const std::string& name, const Json& value, const std::string& where) {
  const std::string key = "sets." + name;
  if (!ValidSetName(name)) {
    return Bad(where, key +
                          ": a set's name is its folder's: lower-case letters, digits, '.', '_' "
                          "and '-', starting with a letter or digit");
  }
  if (!value.is_object())
    return Bad(where, key + " must be an object");
  OCR_RETURN_IF_ERROR(
      OnlyKeys(value, {"description", "files", "manifest", "optional_parts", "needs"}, where, key));
  CatalogSet set;
  set.name = name;
  OCR_ASSIGN_OR_RETURN(set.description, StringAt(value, "description", where, key, false));
  const auto files = value.find("files");
  if (files == value.end() || !files->is_object())
    return Bad(where, key + ".files must be an object: install path -> file id");
  for (const auto& [path, id] : files->items()) {
    OCR_RETURN_IF_ERROR(CheckInstallPath(path, where, key + ".files"));
    if (!id.is_string())
      return Bad(where,
                 Cat({key, ".files.", path, " must name a file of the catalog's \"files\""}));
    set.files.push_back({path, id.get<std::string>()});
  }
  const auto manifest = value.find("manifest");
  if (manifest == value.end() || !manifest->is_object())
    return Bad(where, key + ".manifest must be an object (the set's manifest.json parts)");
  if (manifest->contains("files"))
    return Bad(where, key + ".manifest.files: the installer writes a set's files record");
  Result<pipeline::ModelManifest> parsed =
      pipeline::ParseManifest(manifest->dump(), where + ": " + key + ".manifest");
  if (!parsed.ok())
    return InvalidArgument(parsed.status().message());
  set.manifest = std::move(*parsed);
  if (!set.manifest.det || !set.manifest.rec)
    return Bad(where, key + ".manifest must name its det and rec parts");
  OCR_ASSIGN_OR_RETURN(set.optional_parts, NamesAt(value, "optional_parts", where, key));
  for (const std::string& part : set.optional_parts) {
    const bool known = part == "cls" || part == "rec_second";
    if (!known) {
      return Bad(where, Cat({key, ".optional_parts: '", part,
                             "' cannot be optional (cls and rec_second can; a set needs its det "
                             "and rec)"}));
    }
  }
  OCR_ASSIGN_OR_RETURN(set.needs, NamesAt(value, "needs", where, key));
  return set;
}

// Where a part's path points: inside the set, into another set of the folder, or outside.
struct PartPlace {
  std::string set;   // empty: inside the set itself
  std::string path;  // in that set's folder
};

Result<PartPlace> PlaceOf(const std::filesystem::path& path, const std::string& where,
                          const std::string& key) {
  const std::filesystem::path normal = path.lexically_normal();
  auto it = normal.begin();
  if (it == normal.end() || *it != "..")
    return PartPlace{"", normal.generic_string()};
  ++it;
  if (it == normal.end() || *it == ".." || std::next(it) == normal.end()) {
    return Bad(where, key + " '" + path.generic_string() +
                          "' may reach only into a sibling set's folder (../SET/FILE)");
  }
  PartPlace place{it->string(), ""};
  std::filesystem::path rest;
  for (++it; it != normal.end(); ++it)
    rest /= *it;
  place.path = rest.generic_string();
  return place;
}

bool SetHasFile(const CatalogSet& set, std::string_view path) {
  return std::any_of(set.files.begin(), set.files.end(),
                     [&](const SetFile& f) { return f.path == path; });
}

// The checks across entries: file ids, parts, needs (and no cycle through them).
Status CheckReferences(const Catalog& catalog, const std::string& where) {
  for (const CatalogSet& set : catalog.sets()) {
    const std::string key = "sets." + set.name;
    for (const SetFile& file : set.files) {
      if (catalog.FindFile(file.file_id) == nullptr) {
        return Bad(where, key + ".files." + file.path + " names '" + file.file_id +
                              "', which is not in the catalog's \"files\"");
      }
    }
    for (const std::string& need : set.needs) {
      if (catalog.FindSet(need) == nullptr || need == set.name) {
        return Bad(where, Cat({key, ".needs names '", need, "', which is not another set (",
                               catalog.SetNames(), ")"}));
      }
    }
    for (const NamedPart& named : PartsOf(set.manifest)) {
      const std::string part_key = key + ".manifest." + std::string(named.name);
      std::vector<std::pair<std::string, std::filesystem::path>> paths = {
          {part_key + ".path", named.part->path}};
      if (!named.part->dictionary.empty())
        paths.emplace_back(part_key + ".dictionary", named.part->dictionary);
      for (const auto& [path_key, path] : paths) {
        OCR_ASSIGN_OR_RETURN(const PartPlace place, PlaceOf(path, where, path_key));
        if (place.set.empty()) {
          if (!SetHasFile(set, place.path)) {
            return Bad(where, Cat({path_key, " '", place.path, "' is not one of ", key, ".files"}));
          }
          continue;
        }
        const CatalogSet* other = catalog.FindSet(place.set);
        if (other == nullptr)
          continue;  // a set made elsewhere (scripts/build): checked when pulled
        if (std::find(set.needs.begin(), set.needs.end(), other->name) == set.needs.end()) {
          return Bad(where, Cat({path_key, " reaches into ", other->name, ", which ", key,
                                 ".needs must name (so it is pulled first)"}));
        }
        if (!SetHasFile(*other, place.path)) {
          return Bad(where, Cat({path_key, " '", path.generic_string(), "' is not one of sets.",
                                 other->name, ".files"}));
        }
      }
    }
  }
  // No cycle through needs: a depth-first walk with the path so far.
  std::function<Status(const CatalogSet&, std::vector<std::string>&)> walk =
      [&](const CatalogSet& set, std::vector<std::string>& path) -> Status {
    if (std::find(path.begin(), path.end(), set.name) != path.end()) {
      std::string chain;
      for (const std::string& name : path) {
        chain += name;
        chain += " -> ";
      }
      return Bad(where, "sets need each other in a circle: " + chain + set.name);
    }
    path.push_back(set.name);
    for (const std::string& need : set.needs)
      OCR_RETURN_IF_ERROR(walk(*catalog.FindSet(need), path));
    path.pop_back();
    return Status::Ok();
  };
  for (const CatalogSet& set : catalog.sets()) {
    std::vector<std::string> path;
    OCR_RETURN_IF_ERROR(walk(set, path));
  }
  return Status::Ok();
}

}  // namespace

std::vector<NamedPart> PartsOf(const pipeline::ModelManifest& manifest) {
  std::vector<NamedPart> parts;
  const std::array<const std::optional<pipeline::ManifestPart>*, 4> slots = {
      &manifest.det, &manifest.rec, &manifest.cls, &manifest.rec_second};
  for (std::size_t i = 0; i < kPartNames.size(); ++i) {
    if (*slots[i])
      parts.push_back({kPartNames[i], &**slots[i]});
  }
  return parts;
}

Result<Catalog> Catalog::Parse(std::string_view text, const std::string& where) {
  const Json json = Json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object())
    return Bad(where, "not a JSON object");
  OCR_RETURN_IF_ERROR(
      OnlyKeys(json, {"catalog_version", "description", "files", "sets"}, where, ""));
  const auto version = json.find("catalog_version");
  if (version == json.end() || !version->is_number_integer() || version->get<int>() != 1)
    return Bad(where, "catalog_version must be 1 (the only version this onnxocr reads)");
  Catalog catalog;
  catalog.where_ = where;
  OCR_ASSIGN_OR_RETURN(catalog.description_, StringAt(json, "description", where, "", false));
  const auto files = json.find("files");
  if (files == json.end() || !files->is_object())
    return Bad(where, "files must be an object: file id -> {url, bytes, sha256}");
  for (const auto& [id, value] : files->items()) {
    OCR_ASSIGN_OR_RETURN(CatalogFile file, FileAt(id, value, where));
    catalog.files_.emplace(id, std::move(file));
  }
  const auto sets = json.find("sets");
  if (sets == json.end() || !sets->is_object())
    return Bad(where, "sets must be an object: set name -> {files, manifest}");
  for (const auto& [name, value] : sets->items()) {
    OCR_ASSIGN_OR_RETURN(CatalogSet set, SetAt(name, value, where));
    catalog.sets_.push_back(std::move(set));
  }
  OCR_RETURN_IF_ERROR(CheckReferences(catalog, where));
  return catalog;
}

Result<Catalog> Catalog::BuiltIn() {
  const EmbeddedFile* file = internal::FindAsset("/catalog.json");
  if (file == nullptr)
    return Internal("the built-in catalog is missing from the binary");
  return Parse(file->body, "the built-in catalog");
}

Result<Catalog> Catalog::Load(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status(StatusCode::kNotFound, "cannot read the catalog " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    return Status(StatusCode::kNotFound, "cannot read the catalog " + path.string());
  return Parse(text.str(), path.string());
}

const CatalogSet* Catalog::FindSet(std::string_view name) const {
  for (const CatalogSet& set : sets_) {
    if (set.name == name)
      return &set;
  }
  return nullptr;
}

const CatalogFile* Catalog::FindFile(std::string_view id) const {
  const auto it = files_.find(id);
  return it == files_.end() ? nullptr : &it->second;
}

const CatalogFile& Catalog::FileOf(const SetFile& file) const {
  return files_.find(file.file_id)->second;
}

std::string Catalog::SetNames() const {
  std::string names;
  for (std::size_t i = 0; i < sets_.size(); ++i) {
    if (i > 0)
      names += i + 1 == sets_.size() ? " or " : ", ";
    names += sets_[i].name;
  }
  return names.empty() ? "none" : names;
}

}  // namespace ocr::catalog
