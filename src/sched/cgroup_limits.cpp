#include "sched/cgroup_limits.h"

#include <fstream>
#include <string>

namespace ocr::sched {
namespace {

std::optional<double> Quota(double quota_us, double period_us) {
  if (quota_us <= 0 || period_us <= 0)
    return std::nullopt;  // v1 writes -1 for "no limit"
  return quota_us / period_us;
}

}  // namespace

std::optional<double> CgroupCpuQuota(const std::filesystem::path& root) {
  // v2: "max 100000" (no limit) or "250000 100000".
  if (std::ifstream v2(root / "cpu.max"); v2) {
    std::string quota;
    double period = 0;
    if (!(v2 >> quota >> period) || quota == "max")
      return std::nullopt;
    try {
      return Quota(std::stod(quota), period);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  for (const char* dir : {"cpu", "cpu,cpuacct"}) {
    std::ifstream quota_file(root / dir / "cpu.cfs_quota_us");
    std::ifstream period_file(root / dir / "cpu.cfs_period_us");
    double quota = 0;
    double period = 0;
    if (quota_file >> quota && period_file >> period)
      return Quota(quota, period);
  }
  return std::nullopt;
}

std::optional<std::int64_t> CgroupMemoryLimit(const std::filesystem::path& root) {
  // v2: "max" or a byte count; v1 writes a huge number (about 2^63) for "no limit".
  for (const auto& file : {root / "memory.max", root / "memory" / "memory.limit_in_bytes"}) {
    std::ifstream in(file);
    std::string value;
    if (!(in >> value))
      continue;
    if (value == "max")
      return std::nullopt;
    try {
      const long long bytes = std::stoll(value);
      if (bytes <= 0 || bytes >= (1LL << 60))
        return std::nullopt;
      return static_cast<std::int64_t>(bytes);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace ocr::sched
