// This process's memory as the kernel counts it (/proc/self/status on Linux): the resident set
// now (VmRSS) and its peak since start (VmHWM). The default memory budget of `serve` subtracts
// what the warm models hold; `bench` reports growth under load.
// Thread-safety: pure functions over the file system; callable from any thread.
#pragma once

#include <cstdint>
#include <filesystem>

namespace ocr::sched {

struct ProcessMemory {
  std::int64_t resident_bytes = 0;       // VmRSS; 0 when unknown
  std::int64_t peak_resident_bytes = 0;  // VmHWM; 0 when unknown
};

// Parses a /proc/<pid>/status file ("VmRSS:\t  123456 kB"). A field that is missing or malformed,
// or a file that cannot be read (not Linux), reads as 0.
ProcessMemory ReadProcessMemory(const std::filesystem::path& status_file = "/proc/self/status");

}  // namespace ocr::sched
