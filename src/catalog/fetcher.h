// Fetches one file of a catalog into a local file, resumably: from the publisher's URL, or from a
// mirror (--mirror BASE: BASE followed by the path the URL has after its host name; BASE a folder,
// file:// or http(s)://). URLs go through libcurl (Debian's libcurl4-openssl: http, https and
// file; proxies from the usual http_proxy/https_proxy variables; the system's CA certificates); a
// folder is read directly. A destination that already holds bytes is continued from its length
// (an HTTP Range request, or a read from that offset), so an interrupted pull resumes.
// Thread-safety: Fetch may run on several threads at once, each with its own destination.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace ocr::catalog {

// A URL cut at its host: "https://huggingface.co/PaddlePaddle/x?y" is scheme "https", authority
// "huggingface.co", path "/PaddlePaddle/x?y" (the query stays with the path).
struct UrlParts {
  std::string scheme;     // lower case: "http", "https" or "file"
  std::string authority;  // host[:port]; empty for file:///path
  std::string path;       // from the first '/' after the authority; "/" at least
};

// Errors: kInvalidArgument for text that is not an http, https or file URL with a path.
Result<UrlParts> SplitUrl(std::string_view url);

// Where a file is read from: a URL (libcurl) or a path (read directly).
struct Source {
  std::string url;             // empty when `path` is the source
  std::filesystem::path path;  // a file in a mirror folder

  // The URL, or the path, for messages.
  std::string Describe() const { return url.empty() ? path.string() : url; }
};

// The source of `url` through `mirror`: the URL itself when `mirror` is empty; else
// mirror + the URL's path: "https://h/a/b" through "http://m:8080/base/" is
// "http://m:8080/base/a/b", through "file:///srv/m" "file:///srv/m/a/b", through "/srv/m" the
// path /srv/m/a/b (percent escapes decoded, the query dropped).
// Errors: kInvalidArgument for a mirror of another scheme, a file:// mirror that is not absolute,
// a URL that does not split, or a path with a ".." segment (it would leave the mirror folder).
Result<Source> MirroredSource(std::string_view url, std::string_view mirror);

struct FetchOptions {
  // Refuses to write past this many bytes of the file (the catalog's size): a server that sends
  // more is cut off instead of filling the disk. -1: no bound.
  std::int64_t max_bytes = -1;
  // Abort a connection attempt after this long, and a transfer that moves no byte for this long.
  long connect_timeout_s = 30;  // NOLINT(google-runtime-int): libcurl's type
  long stall_timeout_s = 60;    // NOLINT(google-runtime-int)
  // Called as bytes arrive: the destination's length so far and the file's whole length (-1 when
  // not known yet). Called on the fetching thread.
  std::function<void(std::int64_t done, std::int64_t total)> progress;
};

struct FetchResult {
  std::int64_t resumed_from = 0;  // the destination's length before: 0 for a fresh start
  std::int64_t bytes = 0;         // its length after
};

// Appends `source` to `dest` from the length `dest` already has (created when missing). A server
// that ignores the Range request is read again from the start (`dest` truncated); one that answers
// 416 (the range starts at or past the end: the file is complete) leaves `dest` as it is.
// Errors, each naming the source or the destination:
//   kNotFound          HTTP 404 or 410, or a missing file (a mirror without it)
//   kUnavailable       a host that cannot be resolved or reached, a refused or timed-out
//                      connection, a transfer that stalled, a connection closed before the length
//                      it announced (the bytes received are kept: the next Fetch resumes)
//   kResourceExhausted no space left on the device while writing (ENOSPC, EDQUOT)
//   kIoError           another HTTP error status, another write or read failure, a TLS failure
//   kInvalidArgument   more bytes than options.max_bytes (the excess is not written)
Result<FetchResult> Fetch(const Source& source, const std::filesystem::path& dest,
                          const FetchOptions& options);

}  // namespace ocr::catalog
