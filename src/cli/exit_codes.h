// Process exit codes of the onnxocr command (spec/API.md section 5), shared by every subcommand.
// Thread-safety: constants.
#pragma once

namespace ocr::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 2;  // bad flags or arguments, or --pages past a document's end
inline constexpr int kExitModelsFailed = 3;     // a model set failed to load
inline constexpr int kExitInputUnreadable = 4;  // an input is missing, unreadable or undecodable
// `onnxocr models`: a download failed (host unreachable, HTTP 404, truncated, disk full), a file
// failed its size, sha256 or line-count check, or `verify` found a file that differs or is missing
inline constexpr int kExitDownloadFailed = 5;

}  // namespace ocr::cli
