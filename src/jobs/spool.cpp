#include "jobs/spool.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace ocr::jobs {
namespace {

constexpr std::string_view kPartial = ".part";

// An errno as a status: a full disk is a 503 (retry later), anything else an I/O error.
Status FromErrno(int error, std::string_view what) {
  const bool full = error == ENOSPC || error == EDQUOT;
  return {full ? StatusCode::kResourceExhausted : StatusCode::kIoError,
          std::string(what) + ": " + std::generic_category().message(error) +
              (full ? " (the disk under --data-dir is full; retry later)" : "")};
}

// Closes a descriptor when it goes out of scope.
struct Fd {
  int fd = -1;

  ~Fd() {
    if (fd >= 0)
      ::close(fd);
  }
};

}  // namespace

MappedUpload::~MappedUpload() {
  if (size_ > 0)
    ::munmap(const_cast<void*>(data_), size_);
}

void MappedUpload::Evict() const {
  if (size_ > 0)
    ::madvise(const_cast<void*>(data_), size_, MADV_DONTNEED);
}

Result<Spool> Spool::Open(std::filesystem::path folder) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) {
    return Status(StatusCode::kIoError,
                  "cannot create the spool folder " + folder.string() + ": " + error.message());
  }
  for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
    if (entry.path().extension() == kPartial)
      std::filesystem::remove(entry.path(), error);
  }
  return Spool(std::move(folder));
}

Status Spool::Write(std::string_view id, std::string_view bytes) const {
  const std::filesystem::path final_path = PathOf(id);
  std::filesystem::path partial = final_path;
  partial += kPartial;
  Status status;
  {
    Fd file{::open(partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)};
    if (file.fd < 0)
      return FromErrno(errno, "cannot create " + partial.string());
    std::size_t written = 0;
    while (written < bytes.size() && status.ok()) {
      const ssize_t n = ::write(file.fd, bytes.data() + written, bytes.size() - written);
      if (n < 0 && errno != EINTR)
        status = FromErrno(errno, "cannot write " + partial.string());
      else if (n > 0)
        written += static_cast<std::size_t>(n);
    }
    // Synced before the job is stored: a job answered 202 finds its upload after a power cut.
    if (status.ok() && ::fsync(file.fd) != 0)
      status = FromErrno(errno, "cannot sync " + partial.string());
  }
  if (status.ok() && ::rename(partial.c_str(), final_path.c_str()) != 0)
    status = FromErrno(errno, "cannot rename " + partial.string());
  if (!status.ok()) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
  }
  return status;
}

Result<std::shared_ptr<const MappedUpload>> Spool::Map(std::string_view id) const {
  const std::filesystem::path path = PathOf(id);
  Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) {
    if (errno == ENOENT)
      return Status(StatusCode::kNotFound, "the job's upload is gone from the spool");
    return FromErrno(errno, "cannot open " + path.string());
  }

  struct stat info {};

  if (::fstat(file.fd, &info) != 0)
    return FromErrno(errno, "cannot stat " + path.string());
  const auto size = static_cast<std::size_t>(info.st_size);
  if (size == 0)
    return std::make_shared<const MappedUpload>(nullptr, 0);
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, file.fd, 0);
  if (data == MAP_FAILED)
    return FromErrno(errno, "cannot map " + path.string());
  return std::make_shared<const MappedUpload>(data, size);
}

void Spool::Remove(std::string_view id) const {
  std::error_code ignored;
  std::filesystem::remove(PathOf(id), ignored);
}

std::vector<std::string> Spool::IdsIn(const std::filesystem::path& folder) {
  std::vector<std::string> ids;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
    if (entry.path().extension() != kPartial)
      ids.push_back(entry.path().filename().string());
  }
  return ids;
}

}  // namespace ocr::jobs
