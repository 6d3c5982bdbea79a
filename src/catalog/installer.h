// Installs a catalog's sets into a models folder, and checks installed sets against their
// manifests.
//
// Pull(NAME) into DIR: the sets NAME needs first; then, under an flock on DIR/.NAME.lock (one pull
// of a set at a time, e.g. replicas starting together on one volume), each of the set's files is
// fetched into the staging folder DIR/.NAME.partial/ (resumed from what an earlier pull left
// there), and its byte count and sha256 (or, where the catalog pins no digest, its line count) are
// checked against the catalog; only when every file passes is manifest.json written beside them
// and the staging folder renamed to DIR/NAME in one step (an installed set is exchanged with the
// new one atomically, renameat2 RENAME_EXCHANGE, then removed). A set is installed whole or not
// at all. A set already installed whose manifest records the catalog's files and whose files
// verify is left alone. A file that fails its checksum is removed from the staging folder; a
// truncated one is kept, and the next pull resumes it (a resumed file that then fails its
// checksum is fetched once more from its start, since its first part may be an older revision's).
// Thread-safety: functions of plain values; concurrent pulls into one folder serialize on the lock.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/fetcher.h"
#include "common/status.h"

namespace ocr::catalog {

struct PullOptions {
  std::filesystem::path dir;  // the models folder: a set installs as dir/NAME (created if needed)
  std::string mirror;         // empty: the catalog's URLs; else as MirroredSource reads it
  FetchOptions fetch;         // timeouts (max_bytes and progress are set per file)
  // One line per step, for the user ("ppocrv6-tiny: det/det.onnx 1,780,590 B, sha256 ok").
  std::function<void(const std::string& line)> say;
  // A file's bytes as they arrive: its path in the set, done and total (-1: not known).
  std::function<void(const std::string& path, std::int64_t done, std::int64_t total)> progress;
};

enum class PullOutcome {
  kInstalled,  // DIR/NAME was not there
  kReplaced,   // DIR/NAME held another version (an older catalog's, or files that fail)
  kUpToDate,   // DIR/NAME already holds these files, and they verify
};

// Pulls the set `name` of `catalog`, after the sets it needs.
// Errors (the message names the set and the file, and says that nothing was installed):
//   kInvalidArgument   no such set (the message lists the catalog's), a bad mirror
//   kNotFound          a file the mirror or the publisher does not have (HTTP 404), a part
//                      outside the catalog the set needs (../ppocrv4-int8/rec/rec.onnx)
//   kUnavailable       a host that cannot be reached, a truncated or stalled download
//   kModelLoadFailed   a wrong size, sha256 or line count
//   kResourceExhausted a full disk
//   kIoError           DIR/NAME exists but was not installed by a pull (no manifest.json), or
//                      another file-system failure
Result<PullOutcome> Pull(const Catalog& catalog, std::string_view name, const PullOptions& options);

enum class SetState {
  kNotInstalled,  // no DIR/NAME
  kInstalled,     // its manifest records the catalog's files (not hashed: VerifySet hashes)
  kDiffers,       // its manifest records other files (another catalog's): pull replaces it
  kNotPulled,     // DIR/NAME exists without a manifest.json: pull leaves it alone
};

SetState StateOf(const Catalog& catalog, const CatalogSet& set, const std::filesystem::path& dir);

struct FileCheck {
  std::string path;         // as the manifest writes it, relative to the set's folder
  bool recorded = true;     // in the manifest's files record; false: a part outside it
  std::int64_t bytes = -1;  // found; -1: missing
  std::string sha256;       // found; empty when missing or not recorded
  std::string problem;      // empty: it matches
};

struct Verification {
  std::vector<FileCheck> files;

  bool ok() const {
    return std::all_of(files.begin(), files.end(),
                       [](const FileCheck& file) { return file.problem.empty(); });
  }
};

// Checks the files of the set in `set_dir` against its manifest.json's files record (bytes and
// sha256), and that the parts it names outside that record exist.
// Errors: kNotFound when there is no manifest.json; kModelLoadFailed when it does not parse.
Result<Verification> VerifySet(const std::filesystem::path& set_dir);

// A file's lines as the dictionary reader counts them (a last line without '\n' counts).
// Errors: kNotFound when it cannot be read.
Result<std::int64_t> CountLines(const std::filesystem::path& path);

}  // namespace ocr::catalog
