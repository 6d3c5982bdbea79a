#include "catalog/fetcher.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <memory>
#include <mutex>

#include "catalog/internal/format.h"
#include "common/text.h"

namespace ocr::catalog {
namespace {

using internal::ErrnoText;
using internal::Thousands;

// "/a%20b" -> "/a b"; a malformed escape stays as it is.
std::string PercentDecoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const int hi = HexDigitValue(text[i + 1]);
      const int lo = HexDigitValue(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

bool HasDotDotSegment(std::string_view path) {
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    if (path.substr(start, end - start) == "..")
      return true;
    start = end + 1;
  }
  return false;
}

std::string TrimmedBase(std::string_view base) {
  while (!base.empty() && base.back() == '/')
    base.remove_suffix(1);
  return std::string(base);
}

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// The destination: an open file appended to, with the first write error's errno and the bound.
class Destination {
 public:
  explicit Destination(const std::filesystem::path& path)
      : path_(path), fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) {
    if (fd_ < 0)
      errno_ = errno;
  }

  ~Destination() {
    if (fd_ >= 0)
      ::close(fd_);
  }

  Destination(const Destination&) = delete;
  Destination& operator=(const Destination&) = delete;

  bool open() const { return fd_ >= 0; }

  // Its length now (0 for a new file).
  std::int64_t Length() const {
    struct stat st {};

    return ::fstat(fd_, &st) == 0 ? static_cast<std::int64_t>(st.st_size) : 0;
  }

  bool Truncate() {
    if (::ftruncate(fd_, 0) == 0)
      return true;
    errno_ = errno;
    return false;
  }

  // Appends `size` bytes; false on an error (errno_ kept) or past `max_bytes` (over_limit_).
  bool Write(const char* data, std::size_t size, std::int64_t max_bytes) {
    if (max_bytes >= 0 && Length() + static_cast<std::int64_t>(size) > max_bytes) {
      over_limit_ = true;
      return false;
    }
    while (size > 0) {
      const ssize_t n = ::write(fd_, data, size);
      if (n < 0) {
        if (errno == EINTR)
          continue;
        errno_ = errno;
        return false;
      }
      data += n;
      size -= static_cast<std::size_t>(n);
    }
    return true;
  }

  // fsync and close: where a full disk shows up on some file systems.
  bool Finish() {
    const bool synced = ::fsync(fd_) == 0;
    if (!synced)
      errno_ = errno;
    const bool closed = ::close(fd_) == 0;
    if (!closed && synced)
      errno_ = errno;
    fd_ = -1;
    return synced && closed;
  }

  int error() const { return errno_; }

  bool over_limit() const { return over_limit_; }

  // The status of a failed write from `source`.
  Status WriteFailure(const FetchOptions& options, const std::string& source) const {
    if (over_limit_) {
      return InvalidArgument(source + " sends more than the " + Thousands(options.max_bytes) +
                             " bytes the catalog gives for this file (cut off there)");
    }
    const std::string what = "cannot write " + path_.string() + ": " + ErrnoText(errno_);
    if (errno_ == ENOSPC || errno_ == EDQUOT) {
      return {StatusCode::kResourceExhausted,
              what +
                  " (the disk is full: free some space and pull again; what was downloaded "
                  "is kept and the pull resumes from it)"};
    }
    return {StatusCode::kIoError, what};
  }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  int errno_ = 0;
  bool over_limit_ = false;
};

// Closes a file descriptor when it goes out of scope.
struct FileCloser {
  explicit FileCloser(int descriptor) : fd(descriptor) {}

  FileCloser(const FileCloser&) = delete;
  FileCloser& operator=(const FileCloser&) = delete;

  ~FileCloser() { ::close(fd); }

  int fd;
};

Status OpenFailure(const Destination& dest, const std::filesystem::path& path) {
  return {dest.error() == ENOSPC ? StatusCode::kResourceExhausted : StatusCode::kIoError,
          "cannot create " + path.string() + ": " + ErrnoText(dest.error())};
}

Result<FetchResult> FetchFromFolder(const std::filesystem::path& source,
                                    const std::filesystem::path& dest_path,
                                    const FetchOptions& options) {
  const int in = ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) {
    const int error = errno;
    return Status(
        error == ENOENT || error == ENOTDIR ? StatusCode::kNotFound : StatusCode::kIoError,
        "cannot read " + source.string() + " from the mirror folder: " + ErrnoText(error));
  }
  const FileCloser closer{in};

  struct stat st {};

  if (::fstat(in, &st) != 0 || !S_ISREG(st.st_mode))
    return Status(StatusCode::kNotFound, source.string() + " is not a file");
  const auto total = static_cast<std::int64_t>(st.st_size);
  const std::string source_name = source.string();
  Destination dest(dest_path);
  if (!dest.open())
    return OpenFailure(dest, dest_path);
  FetchResult result;
  result.resumed_from = dest.Length();
  if (result.resumed_from > total) {  // not a prefix of this file: start again
    if (!dest.Truncate())
      return dest.WriteFailure(options, source_name);
    result.resumed_from = 0;
  }
  std::int64_t done = result.resumed_from;
  std::array<char, 1 << 16> buffer{};
  while (done < total) {
    const ssize_t n = ::pread(in, buffer.data(), buffer.size(), static_cast<off_t>(done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      return Status(StatusCode::kIoError,
                    "cannot read " + source.string() + ": " + ErrnoText(errno));
    }
    if (n == 0)
      break;  // the file shrank meanwhile: the size check will tell
    if (!dest.Write(buffer.data(), static_cast<std::size_t>(n), options.max_bytes))
      return dest.WriteFailure(options, source_name);
    done += n;
    if (options.progress)
      options.progress(done, total);
  }
  if (!dest.Finish())
    return dest.WriteFailure(options, source_name);
  result.bytes = done;
  return result;
}

// One libcurl transfer's state, shared with its callbacks.
struct Transfer {
  Destination* dest;
  const FetchOptions* options;
  std::int64_t offset;  // the destination's length when the transfer began
};

std::size_t WriteCallback(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const std::size_t bytes = size * count;
  return transfer->dest->Write(data, bytes, transfer->options->max_bytes) ? bytes : 0;
}

int ProgressCallback(void* user, curl_off_t total, curl_off_t now, curl_off_t /*ultotal*/,
                     curl_off_t /*ulnow*/) {
  const auto* transfer = static_cast<const Transfer*>(user);
  if (transfer->options->progress) {
    transfer->options->progress(transfer->offset + now,
                                total > 0 ? transfer->offset + total : std::int64_t{-1});
  }
  return 0;
}

struct CurlOutcome {
  CURLcode code = CURLE_OK;
  long http_status = 0;            // NOLINT(google-runtime-int): libcurl's type
  curl_off_t content_length = -1;  // of this response's body
  std::string message;             // libcurl's error buffer, or its code's text
};

CurlOutcome RunCurl(const std::string& url, Destination& dest, std::int64_t offset,
                    const FetchOptions& options) {
  GlobalInitOnce();
  CurlOutcome outcome;
  const std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) {
    outcome.code = CURLE_FAILED_INIT;
    outcome.message = "libcurl could not start a transfer";
    return outcome;
  }
  std::array<char, CURL_ERROR_SIZE> error{};
  Transfer transfer{&dest, &options, offset};
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error.data());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https,file");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "onnxocr-models");
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, options.connect_timeout_s);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, options.stall_timeout_s);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, WriteCallback);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, ProgressCallback);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &transfer);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  if (offset > 0)
    curl_easy_setopt(c, CURLOPT_RESUME_FROM_LARGE, static_cast<curl_off_t>(offset));
  outcome.code = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &outcome.http_status);
  curl_easy_getinfo(c, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &outcome.content_length);
  outcome.message = error[0] != '\0' ? std::string(error.data()) : curl_easy_strerror(outcome.code);
  return outcome;
}

Status CurlFailure(const CurlOutcome& outcome, const std::string& url, const Destination& dest,
                   std::int64_t offset, const FetchOptions& options) {
  const std::string at = url + ": " + outcome.message;
  switch (outcome.code) {
    case CURLE_WRITE_ERROR:
      if (dest.over_limit() || dest.error() != 0)
        return dest.WriteFailure(options, url);
      return {StatusCode::kIoError, at};
    case CURLE_HTTP_RETURNED_ERROR:
      if (outcome.http_status == 404 || outcome.http_status == 410) {
        return {StatusCode::kNotFound, url + ": HTTP " + std::to_string(outcome.http_status) +
                                           ": the server does not have this file"};
      }
      return {StatusCode::kIoError, url + ": HTTP " + std::to_string(outcome.http_status)};
    case CURLE_FILE_COULDNT_READ_FILE:
    case CURLE_REMOTE_FILE_NOT_FOUND:
      return {StatusCode::kNotFound, at};
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
      return {StatusCode::kUnavailable, at + " (the host cannot be reached)"};
    case CURLE_OPERATION_TIMEDOUT:
      return {StatusCode::kUnavailable,
              at + " (no answer, or the transfer stalled; the bytes received are kept and the "
                   "next pull resumes from them)"};
    case CURLE_PARTIAL_FILE: {
      const std::int64_t had = dest.Length();
      const std::string expected =
          outcome.content_length >= 0 ? " of " + Thousands(offset + outcome.content_length) : "";
      return {StatusCode::kUnavailable, url + ": the connection closed after " + Thousands(had) +
                                            expected +
                                            " bytes (a truncated download; the next pull "
                                            "resumes from them)"};
    }
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return {StatusCode::kUnavailable,
              at + " (the connection failed; the bytes received are kept and the next pull "
                   "resumes from them)"};
    default:
      return {StatusCode::kIoError, at};
  }
}

Result<FetchResult> FetchUrl(const std::string& url, const std::filesystem::path& dest_path,
                             const FetchOptions& options) {
  const std::string& source_name = url;
  Destination dest(dest_path);
  if (!dest.open())
    return OpenFailure(dest, dest_path);
  FetchResult result;
  result.resumed_from = dest.Length();
  CurlOutcome outcome = RunCurl(url, dest, result.resumed_from, options);
  const bool resume_refused =
      outcome.code == CURLE_RANGE_ERROR || outcome.code == CURLE_BAD_DOWNLOAD_RESUME;
  if (result.resumed_from > 0 && resume_refused) {
    // A server without ranges, or a partial file longer than the source: start again.
    if (!dest.Truncate())
      return dest.WriteFailure(options, source_name);
    result.resumed_from = 0;
    outcome = RunCurl(url, dest, 0, options);
  }
  const bool already_complete = result.resumed_from > 0 &&
                                outcome.code == CURLE_HTTP_RETURNED_ERROR &&
                                outcome.http_status == 416;
  if (outcome.code != CURLE_OK && !already_complete)
    return CurlFailure(outcome, url, dest, result.resumed_from, options);
  if (!dest.Finish())
    return dest.WriteFailure(options, source_name);
  std::error_code ec;
  result.bytes = static_cast<std::int64_t>(std::filesystem::file_size(dest_path, ec));
  return result;
}

}  // namespace

Result<UrlParts> SplitUrl(std::string_view url) {
  const std::size_t colon = url.find("://");
  if (colon == std::string_view::npos)
    return InvalidArgument("'" + std::string(url) + "' is not a URL (scheme://host/path)");
  UrlParts parts;
  parts.scheme = AsciiLower(url.substr(0, colon));
  if (parts.scheme != "http" && parts.scheme != "https" && parts.scheme != "file") {
    return InvalidArgument("'" + std::string(url) + "': only http, https and file URLs are read");
  }
  const std::string_view rest = url.substr(colon + 3);
  const std::size_t slash = rest.find_first_of("/?#");
  parts.authority = std::string(rest.substr(0, slash));
  if (parts.authority.empty() && parts.scheme != "file")
    return InvalidArgument("'" + std::string(url) + "' has no host");
  if (slash == std::string_view::npos || rest[slash] != '/')
    return InvalidArgument("'" + std::string(url) + "' has no path after its host");
  parts.path = std::string(rest.substr(slash));
  return parts;
}

Result<Source> MirroredSource(std::string_view url, std::string_view mirror) {
  OCR_ASSIGN_OR_RETURN(const UrlParts parts, SplitUrl(url));
  if (mirror.empty())
    return Source{std::string(url), {}};
  const std::string lower = AsciiLower(mirror.substr(0, std::min<std::size_t>(mirror.size(), 8)));
  if (lower.starts_with("http://") || lower.starts_with("https://")) {
    const std::string base = TrimmedBase(mirror);
    OCR_RETURN_IF_ERROR(SplitUrl(base + "/").status());  // a host, and any path
    return Source{base + parts.path, {}};
  }
  if (lower.starts_with("file://")) {
    OCR_ASSIGN_OR_RETURN(const UrlParts base, SplitUrl(TrimmedBase(mirror) + "/"));
    if (!base.authority.empty() && base.authority != "localhost") {
      return InvalidArgument("--mirror " + std::string(mirror) +
                             ": a file:// mirror is a local folder, file:///path/to/folder");
    }
    return Source{TrimmedBase(mirror) + parts.path, {}};
  }
  if (mirror.find("://") != std::string_view::npos) {
    return InvalidArgument("--mirror " + std::string(mirror) +
                           ": a mirror is a folder, a file:// URL or an http(s):// URL");
  }
  std::string path = parts.path.substr(0, parts.path.find_first_of("?#"));
  path = PercentDecoded(path);
  if (HasDotDotSegment(path)) {
    return InvalidArgument("'" + std::string(url) +
                           "' has a '..' segment, which would leave the mirror folder");
  }
  return Source{"", std::filesystem::path(mirror) / path.substr(1)};
}

Result<FetchResult> Fetch(const Source& source, const std::filesystem::path& dest,
                          const FetchOptions& options) {
  if (source.url.empty())
    return FetchFromFolder(source.path, dest, options);
  return FetchUrl(source.url, dest, options);
}

}  // namespace ocr::catalog
