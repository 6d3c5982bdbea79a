// CPU topology and worker placement: which cores exist (packages, NUMA nodes, hyperthreads, read
// with hwloc), which of them this process may use (affinity mask, cgroup CPU quota), and how the
// inference workers are laid out over them: one worker per usable physical core, one worker group
// per NUMA node. PlanWorkerGroups is a pure function so multi-socket layouts are testable with
// hwloc's synthetic topologies on any machine.
// Thread-safety: plain values and pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace ocr::sched {

// One physical core: its hardware threads (OS CPU numbers, as in /proc/cpuinfo).
struct CpuCore {
  int package = 0;
  int numa_node = 0;
  std::vector<int> cpus;  // hyperthreads of this core, ascending
};

struct Topology {
  std::vector<CpuCore> cores;  // in hwloc's logical order (package, node, core)

  int packages() const;
  int numa_nodes() const;
  int hardware_threads() const;
};

// The machine this process runs on. Errors: kInternal when hwloc cannot read it.
Result<Topology> DiscoverTopology();

// A made-up machine in hwloc's synthetic syntax, e.g. "pack:2 [numa] core:8 pu:2" (two sockets
// of eight hyperthreaded cores, one NUMA node each). Errors: kInvalidArgument for bad syntax.
Result<Topology> SyntheticTopology(const std::string& description);

// The CPUs this process may run on (sched_getaffinity).
std::vector<int> AllowedCpus();

struct PlacementOptions {
  int max_threads = 0;              // --threads: 0 = every usable core
  bool numa = true;                 // --numa off: one group over every node
  std::optional<double> cpu_quota;  // cgroup CPU limit in cores (2.5 = 250 ms per 100 ms)
};

// Workers that share one set of model sessions, placed on one NUMA node.
struct WorkerGroupPlan {
  int numa_node = -1;     // -1 when the group spans nodes (--numa off)
  std::vector<int> cpus;  // one worker pinned to each; -1 = unpinned
};

// Lays workers out: one per physical core that has an allowed CPU (its first allowed hardware
// thread; sibling hyperthreads stay free, since two inference threads on one core mostly wait for
// the same execution units), capped by max_threads and by the quota rounded down (at least 1).
// Under a cap, nodes are filled one after another so a group's workers share local memory. With
// no usable core at all (an affinity mask outside the topology), one unpinned worker.
std::vector<WorkerGroupPlan> PlanWorkerGroups(const Topology& topology,
                                              const std::vector<int>& allowed_cpus,
                                              const PlacementOptions& options);

// Pins the calling thread to `cpu` (no-op for -1). A failure is returned, not fatal: placement is
// an optimization, and a container may forbid it.
Status PinCurrentThread(int cpu);

// "2 packages, 2 NUMA nodes, 16 cores, 32 hardware threads" for logs and /info.
std::string DescribeTopology(const Topology& topology);

}  // namespace ocr::sched
