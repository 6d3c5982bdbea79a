#include "sched/process_memory.h"

#include <charconv>
#include <fstream>
#include <string>
#include <string_view>

namespace ocr::sched {
namespace {

// Bytes in the value of a "Name:   123456 kB" line (after the colon); 0 when malformed.
std::int64_t KibibytesField(std::string_view value) {
  const size_t start = value.find_first_not_of(" \t");
  if (start == std::string_view::npos)
    return 0;
  value.remove_prefix(start);
  std::int64_t kib = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), kib);
  if (error != std::errc() || kib < 0 || kib > (std::int64_t{1} << 50))
    return 0;
  return kib * 1024;
}

}  // namespace

ProcessMemory ReadProcessMemory(const std::filesystem::path& status_file) {
  ProcessMemory memory;
  std::ifstream status(status_file);
  std::string line;
  while (std::getline(status, line)) {
    const std::string_view view(line);
    if (view.starts_with("VmRSS:"))
      memory.resident_bytes = KibibytesField(view.substr(6));
    else if (view.starts_with("VmHWM:"))
      memory.peak_resident_bytes = KibibytesField(view.substr(6));
  }
  return memory;
}

}  // namespace ocr::sched
