#include "sched/cpu_quota.h"

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

}  // namespace ocr::sched
