#include "catalog/installer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "catalog/internal/format.h"
#include "common/sha256.h"

namespace ocr::catalog {
namespace {

namespace fs = std::filesystem;
using internal::Thousands;

std::string Short(const std::string& sha256) {
  return sha256.substr(0, 12);
}

Status IoError(const std::string& what, int error) {
  return {
      error == ENOSPC || error == EDQUOT ? StatusCode::kResourceExhausted : StatusCode::kIoError,
      what + ": " + internal::ErrnoText(error)};
}

// An flock held on a file for as long as this lives.
class FolderLock {
 public:
  FolderLock() = default;
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

  ~FolderLock() {
    if (fd_ >= 0)
      ::close(fd_);  // releases the lock
  }

  // Takes the lock on `path`, telling `say` when another process holds it and this one waits.
  Status Acquire(const fs::path& path, const std::function<void(const std::string&)>& say) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      return IoError("cannot create the lock file " + path.string(), errno);
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0)
      return Status::Ok();
    if (say)
      say("waiting for another pull into the same folder (" + path.string() + ")");
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR)
        return IoError("cannot lock " + path.string(), errno);
    }
    return Status::Ok();
  }

 private:
  int fd_ = -1;
};

Status SyncPath(const fs::path& path, bool directory) {
  const int fd = ::open(path.c_str(), (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0)
    return IoError("cannot open " + path.string(), errno);
  const int synced = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (synced != 0)
    return IoError("cannot sync " + path.string(), error);
  return Status::Ok();
}

Status WriteSynced(const fs::path& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return IoError("cannot create " + path.string(), errno);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return IoError("cannot write " + path.string(), error);
    }
    done += static_cast<std::size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  const int error = errno;
  if (::close(fd) != 0 || !synced)
    return IoError("cannot write " + path.string(), synced ? errno : error);
  return Status::Ok();
}

std::int64_t SizeOf(const fs::path& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? -1 : static_cast<std::int64_t>(size);
}

// The manifest records the catalog's files: the same paths, URLs, and pinned sizes and digests.
bool RecordsMatch(const Catalog& catalog, const CatalogSet& set,
                  const pipeline::ModelManifest& manifest) {
  if (manifest.files.size() != set.files.size())
    return false;
  return std::all_of(set.files.begin(), set.files.end(), [&](const SetFile& file) {
    const auto it = manifest.files.find(file.path);
    if (it == manifest.files.end())
      return false;
    const CatalogFile& want = catalog.FileOf(file);
    const pipeline::ManifestFile& have = it->second;
    return have.url == want.url && (want.sha256.empty() || have.sha256 == want.sha256) &&
           (want.bytes < 0 || have.bytes == want.bytes);
  });
}

// Where a part's path lands, from the set's folder, without the kernel (the folder may not exist
// yet): DIR/NAME/../ppocrv4/cls/cls.onnx is DIR/ppocrv4/cls/cls.onnx.
fs::path Landing(const fs::path& set_dir, const fs::path& part_path) {
  return (set_dir / part_path).lexically_normal();
}

std::optional<pipeline::ManifestPart>& Slot(pipeline::ModelManifest& manifest,
                                            std::string_view name) {
  return name == "det"   ? manifest.det
         : name == "rec" ? manifest.rec
         : name == "cls" ? manifest.cls
                         : manifest.rec_second;
}

// The set's parts as this folder can have them: an optional part whose file is not there is
// left out; a required one outside the set's own files must be there (a needed set was pulled
// before). Errors: kNotFound naming the part and the file.
Result<pipeline::ModelManifest> PartsFor(const CatalogSet& set, const fs::path& set_dir) {
  pipeline::ModelManifest manifest = set.manifest;
  std::set<std::string> own;
  for (const SetFile& file : set.files)
    own.insert(file.path);
  std::vector<std::string> dropped;
  for (const NamedPart& named : PartsOf(set.manifest)) {
    const bool optional = std::find(set.optional_parts.begin(), set.optional_parts.end(),
                                    named.name) != set.optional_parts.end();
    std::vector<fs::path> paths = {named.part->path};
    if (!named.part->dictionary.empty())
      paths.push_back(named.part->dictionary);
    for (const fs::path& path : paths) {
      if (own.contains(path.lexically_normal().generic_string()))
        continue;
      std::error_code ec;
      const fs::path landing = Landing(set_dir, path);
      if (fs::is_regular_file(landing, ec))
        continue;
      if (optional) {
        dropped.emplace_back(named.name);
        break;
      }
      return Status(StatusCode::kNotFound,
                    set.name + ": its " + std::string(named.name) + " part is " +
                        path.generic_string() + ", and " + landing.string() +
                        " is not there (install that set first: scripts/bootstrap installs "
                        "ppocrv4, scripts/build release makes ppocrv4-int8); nothing was "
                        "installed");
    }
  }
  for (const std::string& name : dropped)
    Slot(manifest, name).reset();
  return manifest;
}

// What one file of the set came to, for its manifest record and the user.
struct Fetched {
  pipeline::ManifestFile record;
  std::int64_t resumed_from = 0;
  std::int64_t lines = -1;  // when counted
};

// Checks the staged file against the catalog. `problem` is empty when it passes; `keep` says the
// file may be resumed (a short one) rather than removed.
struct Check {
  std::string problem;
  bool keep = false;
  std::string sha256;
  std::int64_t lines = -1;
};

Result<Check> CheckStaged(const CatalogFile& want, const fs::path& staged,
                          const std::string& label) {
  Check check;
  const std::int64_t size = SizeOf(staged);
  if (want.bytes >= 0 && size != want.bytes) {
    check.keep = size < want.bytes;
    check.problem = label + " has " + Thousands(size) + " bytes, the catalog says " +
                    Thousands(want.bytes) +
                    (check.keep ? " (a truncated download: it is kept in the staging folder, and "
                                  "the next pull resumes it)"
                                : " (removed from the staging folder)");
    return check;
  }
  OCR_ASSIGN_OR_RETURN(check.sha256, Sha256OfFile(staged));
  if (!want.sha256.empty() && check.sha256 != want.sha256) {
    check.problem = "checksum mismatch for " + label + ": the catalog pins sha256 " + want.sha256 +
                    ", the file downloaded has " + check.sha256 +
                    " (removed from the staging folder)";
    return check;
  }
  if (want.lines >= 0) {
    OCR_ASSIGN_OR_RETURN(check.lines, CountLines(staged));
    if (check.lines != want.lines) {
      check.problem = label + " has " + Thousands(check.lines) + " lines, the catalog expects " +
                      Thousands(want.lines) +
                      " (a dictionary has its recognizer's classes less the blank and the "
                      "space; removed from the staging folder)";
    }
  }
  return check;
}

Result<Fetched> FetchVerified(const CatalogSet& set, const SetFile& file, const CatalogFile& want,
                              const fs::path& staging, const PullOptions& options) {
  const fs::path staged = staging / file.path;
  const std::string label = file.path + " (" + want.url + ")";
  std::error_code ec;
  fs::create_directories(staged.parent_path(), ec);
  if (ec)
    return IoError("cannot create " + staged.parent_path().string(), ec.value());
  OCR_ASSIGN_OR_RETURN(const Source source, MirroredSource(want.url, options.mirror));
  FetchOptions fetch = options.fetch;
  fetch.max_bytes = want.bytes;
  if (options.progress) {
    fetch.progress = [&options, &file](std::int64_t done, std::int64_t total) {
      options.progress(file.path, done, total);
    };
  }
  Fetched fetched;
  for (int attempt = 0;; ++attempt) {
    const std::int64_t had = SizeOf(staged);
    if (want.bytes >= 0 && had > want.bytes)
      fs::remove(staged, ec);  // longer than the file: not a part of it
    fetched.resumed_from = std::max<std::int64_t>(SizeOf(staged), 0);
    const bool complete = want.bytes >= 0 && fetched.resumed_from == want.bytes;
    if (!complete) {
      Result<FetchResult> got = Fetch(source, staged, fetch);
      if (!got.ok()) {
        StatusCode code = got.status().code();
        if (code == StatusCode::kInvalidArgument) {
          fs::remove(staged, ec);               // more than the catalog's size: not this file
          code = StatusCode::kModelLoadFailed;  // a wrong size, not the caller's mistake
        }
        // The fetcher's message names the source (or the destination, for a write).
        return Status(code, set.name + ": " + file.path + ": " + got.status().message() +
                                "; nothing was installed");
      }
      fetched.resumed_from = got->resumed_from;
    }
    OCR_ASSIGN_OR_RETURN(const Check check, CheckStaged(want, staged, label));
    if (check.problem.empty()) {
      fetched.record = {SizeOf(staged), check.sha256, want.url};
      fetched.lines = check.lines;
      return fetched;
    }
    if (!check.keep)
      fs::remove(staged, ec);
    // A file continued from an earlier pull may have begun as another revision: once more
    // from its start.
    if (fetched.resumed_from > 0 && !check.keep && attempt == 0) {
      if (options.say)
        options.say(set.name + ": " + file.path +
                    " failed its check after resuming; fetching it again from the start");
      continue;
    }
    const StatusCode code = check.keep ? StatusCode::kUnavailable : StatusCode::kModelLoadFailed;
    return Status(code, set.name + ": " + check.problem + "; nothing was installed");
  }
}

// Files in the staging folder that the set does not have (an older catalog's).
void RemoveStrays(const CatalogSet& set, const fs::path& staging) {
  std::set<fs::path> keep = {fs::path(pipeline::kManifestFileName)};
  for (const SetFile& file : set.files)
    keep.insert(fs::path(file.path));
  std::vector<fs::path> strays;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(staging, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_directory(ec) && !keep.contains(it->path().lexically_relative(staging)))
      strays.push_back(it->path());
  }
  for (const fs::path& stray : strays)
    fs::remove(stray, ec);
}

// Puts the staging folder at `target` in one step; an older set there is exchanged out and
// removed.
Status MoveIntoPlace(const fs::path& staging, const fs::path& target, bool replace) {
  if (!replace) {
    if (::rename(staging.c_str(), target.c_str()) != 0)
      return IoError("cannot rename " + staging.string() + " to " + target.string(), errno);
    return Status::Ok();
  }
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) != 0) {
    if (errno != EINVAL && errno != ENOSYS)
      return IoError("cannot exchange " + staging.string() + " and " + target.string(), errno);
    // A file system without the exchange: the old set steps aside, then the new one moves in.
    const fs::path aside = target.parent_path() / ("." + target.filename().string() + ".old");
    std::error_code ec;
    fs::remove_all(aside, ec);
    if (::rename(target.c_str(), aside.c_str()) != 0)
      return IoError("cannot move " + target.string() + " aside", errno);
    if (::rename(staging.c_str(), target.c_str()) != 0) {
      const int error = errno;
      (void)::rename(aside.c_str(), target.c_str());  // the old set back; the error is `error`
      return IoError("cannot rename " + staging.string() + " to " + target.string(), error);
    }
    fs::remove_all(aside, ec);
    return Status::Ok();
  }
  std::error_code ec;
  fs::remove_all(staging, ec);  // now the old set
  return Status::Ok();
}

std::string FileLine(const std::string& set, const SetFile& file, const CatalogFile& want,
                     const Fetched& fetched) {
  std::string line = set + ": " + file.path + " " + Thousands(fetched.record.bytes) + " B";
  if (want.sha256.empty()) {
    line += ", " + Thousands(fetched.lines) + " lines (dictionary checked by its line count; " +
            "its sha256 " + Short(fetched.record.sha256) + "... recorded)";
  } else {
    line += ", sha256 " + Short(fetched.record.sha256) + "... ok";
    if (fetched.lines >= 0)
      line += ", " + Thousands(fetched.lines) + " lines";
  }
  if (fetched.resumed_from > 0)
    line += " (resumed at " + Thousands(fetched.resumed_from) + " B)";
  return line;
}

Result<PullOutcome> PullOne(const Catalog& catalog, const CatalogSet& set,
                            const PullOptions& options) {
  const auto say = [&options](const std::string& line) {
    if (options.say)
      options.say(line);
  };
  std::error_code ec;
  fs::create_directories(options.dir, ec);
  if (ec)
    return IoError("cannot create the models folder " + options.dir.string(), ec.value());
  FolderLock lock;
  OCR_RETURN_IF_ERROR(lock.Acquire(options.dir / ("." + set.name + ".lock"), options.say));

  const fs::path target = options.dir / set.name;
  const bool exists = fs::exists(fs::symlink_status(target, ec));
  if (exists) {
    Result<std::optional<pipeline::ModelManifest>> installed = pipeline::ReadManifest(target);
    if (installed.ok() && !installed->has_value()) {
      return Status(StatusCode::kIoError,
                    set.name + ": " + target.string() +
                        " exists but was not installed by `onnxocr models pull` (it has no "
                        "manifest.json); move it away to pull the catalog's set there");
    }
    if (installed.ok() && RecordsMatch(catalog, set, **installed)) {
      Result<Verification> verified = VerifySet(target);
      if (verified.ok() && verified->ok()) {
        say(set.name + ": up to date in " + target.string());
        return PullOutcome::kUpToDate;
      }
    }
    say(set.name + ": " + target.string() +
        " holds another version or files that fail their check: pulling the catalog's, which "
        "replaces it once complete");
  }
  // Every part outside the set must be there before anything is downloaded.
  OCR_ASSIGN_OR_RETURN(pipeline::ModelManifest manifest, PartsFor(set, target));

  const fs::path staging = options.dir / ("." + set.name + ".partial");
  fs::create_directories(staging, ec);
  if (ec)
    return IoError("cannot create the staging folder " + staging.string(), ec.value());
  for (const SetFile& file : set.files) {
    const CatalogFile& want = catalog.FileOf(file);
    OCR_ASSIGN_OR_RETURN(const Fetched fetched, FetchVerified(set, file, want, staging, options));
    say(FileLine(set.name, file, want, fetched));
    manifest.files[file.path] = fetched.record;
  }
  RemoveStrays(set, staging);
  for (const SetFile& file : set.files)
    OCR_RETURN_IF_ERROR(SyncPath(staging / file.path, false));
  OCR_RETURN_IF_ERROR(
      WriteSynced(staging / pipeline::kManifestFileName, pipeline::ManifestJson(manifest)));
  for (auto it = fs::recursive_directory_iterator(staging, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec))
      OCR_RETURN_IF_ERROR(SyncPath(it->path(), true));
  }
  OCR_RETURN_IF_ERROR(SyncPath(staging, true));
  OCR_RETURN_IF_ERROR(MoveIntoPlace(staging, target, exists));
  OCR_RETURN_IF_ERROR(SyncPath(options.dir, true));
  std::string parts;
  for (const NamedPart& named : PartsOf(manifest))
    parts += (parts.empty() ? "" : ", ") + std::string(named.name);
  say(set.name + ": installed in " + target.string() + " (" + parts + ")");
  return exists ? PullOutcome::kReplaced : PullOutcome::kInstalled;
}

Result<PullOutcome> PullWithNeeds(const Catalog& catalog, const CatalogSet& set,
                                  const PullOptions& options) {
  for (const std::string& need : set.needs) {
    const CatalogSet* needed = catalog.FindSet(need);  // checked when the catalog was parsed
    OCR_RETURN_IF_ERROR(PullWithNeeds(catalog, *needed, options).status());
  }
  return PullOne(catalog, set, options);
}

}  // namespace

Result<PullOutcome> Pull(const Catalog& catalog, std::string_view name,
                         const PullOptions& options) {
  const CatalogSet* set = catalog.FindSet(name);
  if (set == nullptr) {
    return InvalidArgument("no set '" + std::string(name) + "' in " + catalog.where() +
                           "; it has " + catalog.SetNames());
  }
  if (!options.mirror.empty()) {
    // A bad mirror is the caller's mistake: say so before anything is fetched.
    OCR_RETURN_IF_ERROR(MirroredSource("https://example.org/x", options.mirror).status());
  }
  return PullWithNeeds(catalog, *set, options);
}

SetState StateOf(const Catalog& catalog, const CatalogSet& set, const fs::path& dir) {
  const fs::path target = dir / set.name;
  std::error_code ec;
  if (!fs::exists(target, ec))
    return SetState::kNotInstalled;
  Result<std::optional<pipeline::ModelManifest>> manifest = pipeline::ReadManifest(target);
  if (!manifest.ok())
    return SetState::kDiffers;
  if (!manifest->has_value())
    return SetState::kNotPulled;
  return RecordsMatch(catalog, set, **manifest) ? SetState::kInstalled : SetState::kDiffers;
}

Result<Verification> VerifySet(const fs::path& set_dir) {
  OCR_ASSIGN_OR_RETURN(const std::optional<pipeline::ModelManifest> manifest,
                       pipeline::ReadManifest(set_dir));
  if (!manifest) {
    return Status(StatusCode::kNotFound, "no " + std::string(pipeline::kManifestFileName) + " in " +
                                             set_dir.string() +
                                             ": nothing to verify its files against");
  }
  Verification verification;
  for (const auto& [path, record] : manifest->files) {
    FileCheck check;
    check.path = path;
    const fs::path file = set_dir / path;
    check.bytes = SizeOf(file);
    std::error_code ec;
    if (check.bytes < 0 || !fs::is_regular_file(file, ec)) {
      check.bytes = -1;
      check.problem = "missing";
      verification.files.push_back(std::move(check));
      continue;
    }
    if (record.bytes >= 0 && check.bytes != record.bytes) {
      check.problem = "has " + Thousands(check.bytes) + " bytes, the manifest records " +
                      Thousands(record.bytes);
    }
    if (!record.sha256.empty()) {
      Result<std::string> sha = Sha256OfFile(file);
      if (!sha.ok()) {
        check.problem = sha.status().message();
      } else {
        check.sha256 = *sha;
        if (check.problem.empty() && check.sha256 != record.sha256) {
          check.problem = "sha256 " + check.sha256 + ", the manifest records " + record.sha256;
        }
      }
    }
    if (record.bytes < 0 && record.sha256.empty() && check.problem.empty())
      check.problem = "the manifest records neither its size nor its sha256";
    verification.files.push_back(std::move(check));
  }
  // The parts outside the record (another set's files) must at least be there.
  for (const NamedPart& named : PartsOf(*manifest)) {
    std::vector<fs::path> paths = {named.part->path};
    if (!named.part->dictionary.empty())
      paths.push_back(named.part->dictionary);
    for (const fs::path& path : paths) {
      const std::string key = path.lexically_normal().generic_string();
      if (manifest->files.contains(key))
        continue;
      FileCheck check;
      check.path = path.generic_string();
      check.recorded = false;
      check.bytes = SizeOf(set_dir / path);
      std::error_code ec;
      if (check.bytes < 0 || !fs::is_regular_file(set_dir / path, ec)) {
        check.bytes = -1;
        check.problem = "missing (the manifest's " + std::string(named.name) + " part)";
      }
      verification.files.push_back(std::move(check));
    }
  }
  return verification;
}

Result<std::int64_t> CountLines(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status(StatusCode::kNotFound, "cannot read " + path.string());
  std::array<char, 1 << 16> buffer{};
  std::int64_t lines = 0;
  char last = '\n';
  while (in) {
    in.read(buffer.data(), buffer.size());
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0)
      break;
    lines += std::count(buffer.data(), buffer.data() + got, '\n');
    last = buffer[got - 1];
  }
  if (in.bad())
    return Status(StatusCode::kIoError, "cannot read " + path.string());
  return lines + (last != '\n' ? 1 : 0);
}

}  // namespace ocr::catalog
