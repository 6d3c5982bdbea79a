// The CPU quota a container runtime gave this process through cgroups ("--cpus 2.5" in Docker,
// resources.limits.cpu in Kubernetes). Affinity masks show cpusets but not quotas: without this, a
// 4-CPU container on a 64-core host would start 64 busy workers and be throttled.
// Thread-safety: pure functions over the file system.
#pragma once

#include <filesystem>
#include <optional>

namespace ocr::sched {

// Cores allowed by the quota under `cgroup_root` (cgroup v2 `cpu.max`, or v1
// `cpu/cpu.cfs_quota_us` with `cpu.cfs_period_us`); nullopt when there is no limit or no file.
std::optional<double> CgroupCpuQuota(const std::filesystem::path& cgroup_root = "/sys/fs/cgroup");

}  // namespace ocr::sched
