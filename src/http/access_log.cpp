#include "http/access_log.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <random>

#include <nlohmann/json.hpp>

#include "common/log.h"
#include "http/error_mapping.h"

namespace ocr::http {
namespace {

// "2026-11-24T12:00:00.123Z".
std::string UtcNow() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%.*s.%03dZ", static_cast<int>(n), buf, static_cast<int>(ms));
  return out;
}

}  // namespace

void LogAccess(spdlog::logger& log, const AccessEntry& e) {
  if (CurrentLogFormat() == LogFormat::kText) {
    log.info("{} {} {} {} {} {} {:.1f}ms lines={}", UtcNow(), e.request_id, e.method, e.path,
             e.status, e.bytes, e.ms, e.lines);
    return;
  }
  log.info(DumpJson({{"time", UtcNow()},
                     {"request_id", e.request_id},
                     {"method", e.method},
                     {"path", e.path},
                     {"status", e.status},
                     {"bytes", e.bytes},
                     {"ms", std::round(e.ms * 10.0) / 10.0},
                     {"lines", e.lines}}));
}

bool SaneRequestId(std::string_view id) {
  if (id.empty() || id.size() > 128)
    return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
  });
}

std::string NewRequestId() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::uint64_t v = rng();
  std::string id(16, '0');
  for (char& c : id) {
    c = kHex[v & 0xF];
    v >>= 4;
  }
  return id;
}

}  // namespace ocr::http
