// Spool: the folder where the durable job store (jobs/sqlite_jobs.h) keeps each job's upload,
// one file per job named by its id, written whole (and synced) before the job is answered 202 and
// read back through a read-only mapping, so an upload waiting its turn holds page cache the kernel
// may reclaim, not the server's memory.
// Thread-safety: every member is safe from any thread (each file belongs to one job).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ocr::jobs {

// A spooled upload mapped read-only; unmapped when the last holder lets it go.
class MappedUpload {
 public:
  MappedUpload(const void* data, std::size_t size) : data_(data), size_(size) {}

  ~MappedUpload();
  MappedUpload(const MappedUpload&) = delete;
  MappedUpload& operator=(const MappedUpload&) = delete;

  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }

  // Lets go of the pages read so far (opening a PDF reads most of it): they stay in the page
  // cache and come back when read again, but stop counting in this process's resident memory
  // while the job waits.
  void Evict() const;

 private:
  const void* data_;
  std::size_t size_;
};

class Spool {
 public:
  // Creates `folder` when missing and removes the half-written files of a previous process.
  static Result<Spool> Open(std::filesystem::path folder);

  // Writes `bytes` as job `id`'s upload: to a temporary name, synced, then renamed, so the file
  // is whole once it has its name. Errors: kResourceExhausted when the disk is full (ENOSPC,
  // EDQUOT), kIoError otherwise; nothing is left behind.
  Status Write(std::string_view id, std::string_view bytes) const;
  // Job `id`'s upload. Errors: kNotFound when it is not there, kIoError.
  Result<std::shared_ptr<const MappedUpload>> Map(std::string_view id) const;
  // Removes job `id`'s upload (gone already is fine).
  void Remove(std::string_view id) const;

  // The ids of the uploads in the folder.
  std::vector<std::string> Ids() const { return IdsIn(folder_); }

  // The ids of the whole uploads in `folder`, read without opening it as a spool (which removes
  // half-written files): safe beside the server that owns it.
  static std::vector<std::string> IdsIn(const std::filesystem::path& folder);

  const std::filesystem::path& folder() const { return folder_; }

 private:
  explicit Spool(std::filesystem::path folder) : folder_(std::move(folder)) {}

  std::filesystem::path PathOf(std::string_view id) const { return folder_ / std::string(id); }

  std::filesystem::path folder_;
};

}  // namespace ocr::jobs
