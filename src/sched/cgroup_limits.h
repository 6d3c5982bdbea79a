// The limits a container runtime gave this process through cgroups. The CPU quota ("--cpus 2.5" in
// Docker, resources.limits.cpu in Kubernetes): affinity masks show cpusets but not quotas, and
// without it a 4-CPU container on a 64-core host would start 64 busy workers and be throttled.
// The memory limit ("--memory", resources.limits.memory): the default memory budget derives from
// it, so requests are refused with 503 before the kernel's OOM killer ends the process.
// Thread-safety: pure functions over the file system.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

namespace ocr::sched {

// Cores allowed by the quota under `cgroup_root` (cgroup v2 `cpu.max`, or v1
// `cpu/cpu.cfs_quota_us` with `cpu.cfs_period_us`); nullopt when there is no limit or no file.
std::optional<double> CgroupCpuQuota(const std::filesystem::path& cgroup_root = "/sys/fs/cgroup");

// Bytes allowed by the memory limit under `cgroup_root` (v2 `memory.max`, or v1
// `memory/memory.limit_in_bytes`); nullopt when there is no limit or no file.
std::optional<std::int64_t> CgroupMemoryLimit(
    const std::filesystem::path& cgroup_root = "/sys/fs/cgroup");

}  // namespace ocr::sched
