#include "cli/models_command.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/installer.h"
#include "cli/exit_codes.h"
#include "cli/model_flags.h"

namespace ocr::cli {
namespace {

namespace fs = std::filesystem;

std::string Thousands(std::int64_t n) {
  std::string digits = std::to_string(n);
  for (auto i = static_cast<std::ptrdiff_t>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(static_cast<std::size_t>(i), ",");
  return digits;
}

int Fail(const std::string& command, const Status& status, int code) {
  std::cerr << "onnxocr models " << command << ": " << status.message() << "\n";
  return code;
}

Result<catalog::Catalog> LoadCatalog(const ModelsOptions& o) {
  if (o.catalog.empty())
    return catalog::Catalog::BuiltIn();
  return catalog::Catalog::Load(o.catalog);
}

fs::path ModelsDir(const ModelsOptions& o) {
  return o.dir.empty() ? DefaultModelsDir() : fs::path(o.dir);
}

std::string_view StateName(catalog::SetState state) {
  switch (state) {
    case catalog::SetState::kNotInstalled:
      return "not installed";
    case catalog::SetState::kInstalled:
      return "installed";
    case catalog::SetState::kDiffers:
      return "installed, differs from the catalog (pull replaces it)";
    case catalog::SetState::kNotPulled:
      return "a folder of that name not installed by pull (pull leaves it alone)";
  }
  return "";
}

// The folders in `dir` that look like model sets and are not the catalog's.
std::vector<std::string> OtherSets(const catalog::Catalog& cat, const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(".") || !entry.is_directory(ec) || cat.FindSet(name) != nullptr)
      continue;
    if (fs::exists(entry.path() / "det" / "det.onnx", ec) ||
        fs::exists(entry.path() / pipeline::kManifestFileName, ec)) {
      names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string PartText(std::string_view name, const pipeline::ManifestPart& part, bool optional) {
  std::string text = std::string(name) + " " + part.path.generic_string();
  if (part.family)
    text += " (" + std::string(pipeline::ModelFamilyName(*part.family)) + ")";
  if (!part.dictionary.empty())
    text += ", dictionary " + part.dictionary.generic_string();
  if (optional)
    text += ", when that file is there";
  return text;
}

bool IsOptional(const catalog::CatalogSet& set, std::string_view part) {
  return std::find(set.optional_parts.begin(), set.optional_parts.end(), part) !=
         set.optional_parts.end();
}

void ListText(const catalog::Catalog& cat, const fs::path& dir) {
  std::cout << "catalog: " << cat.where() << "\nmodels folder: " << dir.string() << "\n";
  for (const catalog::CatalogSet& set : cat.sets()) {
    std::cout << "\n" << set.name << ": " << StateName(catalog::StateOf(cat, set, dir)) << "\n";
    if (!set.description.empty())
      std::cout << "  " << set.description << "\n";
    if (set.manifest.family)
      std::cout << "  family " << pipeline::ModelFamilyName(*set.manifest.family) << "\n";
    for (const catalog::NamedPart& part : catalog::PartsOf(set.manifest))
      std::cout << "  " << PartText(part.name, *part.part, IsOptional(set, part.name)) << "\n";
    if (!set.needs.empty()) {
      std::string needs;
      for (const std::string& need : set.needs)
        needs += (needs.empty() ? "" : ", ") + need;
      std::cout << "  needs " << needs << " (pulled first)"
                << (set.files.empty() ? "; downloads nothing itself" : "") << "\n";
    }
    for (const catalog::SetFile& file : set.files) {
      const catalog::CatalogFile& f = cat.FileOf(file);
      std::cout << "  file " << file.path << ": ";
      if (f.bytes >= 0)
        std::cout << Thousands(f.bytes) << " B";
      else
        std::cout << "size not pinned";
      if (!f.sha256.empty())
        std::cout << ", sha256 " << f.sha256;
      if (f.lines >= 0) {
        std::cout << (f.sha256.empty() ? ", dictionary checked by its line count (" : ", ")
                  << Thousands(f.lines) << " lines" << (f.sha256.empty() ? ")" : "");
      }
      std::cout << "\n    " << f.url << "\n";
    }
  }
  const std::vector<std::string> others = OtherSets(cat, dir);
  if (!others.empty()) {
    std::cout << "\nother sets in " << dir.string() << ":";
    for (const std::string& name : others)
      std::cout << " " << name;
    std::cout << "\n";
  }
}

nlohmann::ordered_json PartJson(const pipeline::ManifestPart& part) {
  nlohmann::ordered_json j = {{"path", part.path.generic_string()}};
  if (part.family)
    j["family"] = std::string(pipeline::ModelFamilyName(*part.family));
  if (!part.dictionary.empty())
    j["dictionary"] = part.dictionary.generic_string();
  return j;
}

void ListJson(const catalog::Catalog& cat, const fs::path& dir) {
  using Json = nlohmann::ordered_json;
  Json sets = Json::array();
  for (const catalog::CatalogSet& set : cat.sets()) {
    const catalog::SetState state = catalog::StateOf(cat, set, dir);
    Json parts = Json::object();
    for (const catalog::NamedPart& part : catalog::PartsOf(set.manifest))
      parts[std::string(part.name)] = PartJson(*part.part);
    Json files = Json::array();
    for (const catalog::SetFile& file : set.files) {
      const catalog::CatalogFile& f = cat.FileOf(file);
      files.push_back({{"path", file.path},
                       {"url", f.url},
                       {"bytes", f.bytes >= 0 ? Json(f.bytes) : Json(nullptr)},
                       {"sha256", f.sha256.empty() ? Json(nullptr) : Json(f.sha256)},
                       {"lines", f.lines >= 0 ? Json(f.lines) : Json(nullptr)},
                       {"checked_by", f.sha256.empty() ? "line count" : "sha256"}});
    }
    sets.push_back(
        {{"name", set.name},
         {"description", set.description},
         {"family", set.manifest.family
                        ? Json(std::string(pipeline::ModelFamilyName(*set.manifest.family)))
                        : Json(nullptr)},
         {"installed", state == catalog::SetState::kInstalled},
         {"state", std::string(StateName(state))},
         {"path", (dir / set.name).string()},
         {"parts", parts},
         {"optional_parts", set.optional_parts},
         {"needs", set.needs},
         {"files", files}});
  }
  const Json out = {{"catalog", cat.where()},
                    {"dir", dir.string()},
                    {"sets", sets},
                    {"other_sets", OtherSets(cat, dir)}};
  std::cout << out.dump(1) << "\n";
}

// A file's progress on stderr, in place, when stderr is a terminal; erased before each line.
class PullProgress {
 public:
  PullProgress() : enabled_(::isatty(STDERR_FILENO) == 1) {}

  PullProgress(const PullProgress&) = delete;
  PullProgress& operator=(const PullProgress&) = delete;

  ~PullProgress() { Clear(); }

  void Update(const std::string& path, std::int64_t done, std::int64_t total) {
    if (!enabled_)
      return;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(100) && done != total)
      return;
    last_ = now;
    std::string text = "  " + path + " " + Thousands(done) + " B";
    if (total > 0)
      text += " of " + Thousands(total) + " (" + std::to_string(done * 100 / total) + "%)";
    (void)std::fprintf(stderr, "\r\033[K%s", text.c_str());
    (void)std::fflush(stderr);
    drawn_ = true;
  }

  void Clear() {
    if (drawn_) {
      (void)std::fprintf(stderr, "\r\033[K");
      (void)std::fflush(stderr);
      drawn_ = false;
    }
  }

 private:
  const bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

int Pull(const ModelsOptions& o, const catalog::Catalog& cat) {
  for (const std::string& name : o.names) {
    if (cat.FindSet(name) == nullptr) {
      return Fail("pull",
                  InvalidArgument("no set '" + name + "' in " + cat.where() + "; the sets are " +
                                  cat.SetNames() + " (onnxocr models list)"),
                  kExitUsage);
    }
  }
  PullProgress progress;
  catalog::PullOptions options;
  options.dir = ModelsDir(o);
  options.mirror = o.mirror;
  options.say = [&progress](const std::string& line) {
    progress.Clear();
    std::cout << line << std::endl;
  };
  options.progress = [&progress](const std::string& path, std::int64_t done, std::int64_t total) {
    progress.Update(path, done, total);
  };
  for (const std::string& name : o.names) {
    const Result<catalog::PullOutcome> pulled = catalog::Pull(cat, name, options);
    progress.Clear();
    if (!pulled.ok()) {
      return Fail("pull", pulled.status(),
                  pulled.status().code() == StatusCode::kInvalidArgument ? kExitUsage
                                                                         : kExitDownloadFailed);
    }
  }
  return kExitOk;
}

int Verify(const ModelsOptions& o) {
  const fs::path dir = o.set_dir;
  const Result<catalog::Verification> verified = catalog::VerifySet(dir);
  if (!verified.ok())
    return Fail("verify", verified.status(), kExitDownloadFailed);
  std::string failed;
  for (const catalog::FileCheck& file : verified->files) {
    std::cout << (file.problem.empty() ? "ok   " : "FAIL ") << file.path;
    if (file.bytes >= 0)
      std::cout << "  " << Thousands(file.bytes) << " B";
    if (!file.sha256.empty())
      std::cout << "  sha256 " << file.sha256;
    if (!file.recorded && file.problem.empty())
      std::cout << "  (a part outside the files record: present, not hashed)";
    if (!file.problem.empty()) {
      std::cout << ": " << file.problem;
      failed += (failed.empty() ? "" : ", ") + file.path;
    }
    std::cout << "\n";
  }
  if (!failed.empty()) {
    return Fail(
        "verify",
        Status(StatusCode::kModelLoadFailed,
               dir.string() + ": these files differ from manifest.json or are missing: " + failed),
        kExitDownloadFailed);
  }
  const auto outside = static_cast<std::size_t>(
      std::count_if(verified->files.begin(), verified->files.end(),
                    [](const catalog::FileCheck& file) { return !file.recorded; }));
  std::cout << dir.string() << ": " << verified->files.size() - outside
            << " files match its manifest.json";
  if (outside > 0)
    std::cout << ", and the " << outside << " files of its parts in other sets are there";
  std::cout << "\n";
  return kExitOk;
}

}  // namespace

CLI::App* AddModelsCommand(CLI::App& app, ModelsOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "models", "The catalog of published model sets: list them, pull one, verify one");
  cmd->require_subcommand(1);
  const std::string dir_help =
      "The models folder (default: the one the server finds its default sets in: models/ of "
      "the checkout, ./models or /models)";
  const std::string catalog_help =
      "Read this catalog JSON file instead of the built-in one (a catalog of your own, e.g. a "
      "company's; the schema is the built-in src/catalog/catalog.json's)";
  CLI::App* list = cmd->add_subcommand("list",
                                       "The catalog's sets, their files and which are "
                                       "installed")
                       ->callback([&o] { o.list = true; });
  list->add_flag("--json", o.json, "Print one JSON object");
  list->add_option("--dir", o.dir, dir_help)->envname("ONNXOCR_MODELS_DIR");
  list->add_option("--catalog", o.catalog, catalog_help)->envname("ONNXOCR_MODELS_CATALOG");

  CLI::App* pull = cmd->add_subcommand("pull",
                                       "Download sets, check every file's size and sha256, and "
                                       "install each whole (with its manifest.json) or not at "
                                       "all")
                       ->callback([&o] { o.pull = true; });
  pull->add_option("names", o.names, "Set names (onnxocr models list)")->required();
  pull->add_option("--dir", o.dir, dir_help)->envname("ONNXOCR_MODELS_DIR");
  pull->add_option("--mirror", o.mirror,
                   "Read each file from BASE followed by the path its URL has after the host "
                   "name; BASE is a folder, file:///... or http(s)://... (air-gapped and company "
                   "mirrors)")
      ->envname("ONNXOCR_MODELS_MIRROR");
  pull->add_option("--catalog", o.catalog, catalog_help)->envname("ONNXOCR_MODELS_CATALOG");

  CLI::App* verify =
      cmd->add_subcommand("verify",
                          "Check an installed set's files against its manifest.json (bytes and "
                          "sha256)")
          ->callback([&o] { o.verify = true; });
  verify->add_option("dir", o.set_dir, "The set's folder, e.g. models/ppocrv6-tiny")->required();
  return cmd;
}

int Models(const ModelsOptions& o) {
  if (o.verify)
    return Verify(o);
  const Result<catalog::Catalog> cat = LoadCatalog(o);
  if (!cat.ok())
    return Fail(o.pull ? "pull" : "list", cat.status(), kExitUsage);
  if (o.pull)
    return Pull(o, *cat);
  if (o.json)
    ListJson(*cat, ModelsDir(o));
  else
    ListText(*cat, ModelsDir(o));
  return kExitOk;
}

}  // namespace ocr::cli
