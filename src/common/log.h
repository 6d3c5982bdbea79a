// Process-wide logging setup over spdlog: every line goes to stderr, as JSON objects (one per
// line, for log collectors) or as plain text. Thread-safety: call ConfigureLogging once from
// main() before other threads start; logging itself is thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace ocr {

enum class LogFormat { kJson, kText };

// "json" or "text"; level: trace, debug, info, warn, error, critical, off.
Status ConfigureLogging(std::string_view format, std::string_view level);

// The format chosen by ConfigureLogging (kJson until then).
LogFormat CurrentLogFormat();

// Escapes `s` for use inside a JSON string literal.
std::string JsonEscape(std::string_view s);

}  // namespace ocr
