// Process exit codes of the onnxocr command (spec/API.md section 5), shared by every subcommand.
// Thread-safety: constants.
#pragma once

namespace ocr::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 2;            // bad flags or arguments
inline constexpr int kExitModelsFailed = 3;     // a model set failed to load
inline constexpr int kExitInputUnreadable = 4;  // an input file is missing or cannot be decoded

}  // namespace ocr::cli
