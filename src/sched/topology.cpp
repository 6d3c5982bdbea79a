#include "sched/topology.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <memory>
#include <set>
#include <system_error>

#include <hwloc.h>

namespace ocr::sched {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};

using HwlocTopology = std::unique_ptr<hwloc_topology, TopologyDeleter>;

std::vector<int> CpusOf(hwloc_const_cpuset_t set) {
  std::vector<int> cpus;
  for (int i = hwloc_bitmap_first(set); i >= 0; i = hwloc_bitmap_next(set, i))
    cpus.push_back(i);
  return cpus;
}

Topology Read(hwloc_topology_t t) {
  Topology out;
  const int cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
  // Some virtual machines expose hardware threads without cores: each one is then a core.
  const hwloc_obj_type_t unit = cores > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  const int n = hwloc_get_nbobjs_by_type(t, unit);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(t, unit, static_cast<unsigned>(i));
    CpuCore core;
    hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, obj);
    core.package = package ? static_cast<int>(package->logical_index) : 0;
    core.numa_node = obj->nodeset ? std::max(0, hwloc_bitmap_first(obj->nodeset)) : 0;
    core.cpus = CpusOf(obj->cpuset);
    if (!core.cpus.empty())
      out.cores.push_back(std::move(core));
  }
  return out;
}

int CountDistinct(const Topology& t, int CpuCore::*field) {
  std::set<int> seen;
  for (const CpuCore& c : t.cores)
    seen.insert(c.*field);
  return static_cast<int>(seen.size());
}

}  // namespace

int Topology::packages() const {
  return CountDistinct(*this, &CpuCore::package);
}

int Topology::numa_nodes() const {
  return CountDistinct(*this, &CpuCore::numa_node);
}

int Topology::hardware_threads() const {
  int n = 0;
  for (const CpuCore& c : cores)
    n += static_cast<int>(c.cpus.size());
  return n;
}

Result<Topology> DiscoverTopology() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0)
    return Internal("hwloc: cannot initialise a topology");
  HwlocTopology t(raw);
  if (hwloc_topology_load(t.get()) != 0)
    return Internal("hwloc: cannot read this machine's topology");
  return Read(t.get());
}

Result<Topology> SyntheticTopology(const std::string& description) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0)
    return Internal("hwloc: cannot initialise a topology");
  HwlocTopology t(raw);
  if (hwloc_topology_set_synthetic(t.get(), description.c_str()) != 0 ||
      hwloc_topology_load(t.get()) != 0) {
    return InvalidArgument("not a synthetic hwloc topology: " + description);
  }
  return Read(t.get());
}

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return cpus;
  for (int i = 0; i < CPU_SETSIZE; ++i) {
    if (CPU_ISSET(i, &set))
      cpus.push_back(i);
  }
  return cpus;
}

std::vector<WorkerGroupPlan> PlanWorkerGroups(const Topology& topology,
                                              const std::vector<int>& allowed_cpus,
                                              const PlacementOptions& options) {
  const std::set<int> allowed(allowed_cpus.begin(), allowed_cpus.end());
  // Usable cores, by node (std::map keeps nodes in order).
  std::map<int, std::vector<int>> cpus_by_node;
  int usable = 0;
  for (const CpuCore& core : topology.cores) {
    const auto it = std::find_if(core.cpus.begin(), core.cpus.end(),
                                 [&](int cpu) { return allowed.count(cpu) != 0; });
    if (it == core.cpus.end())
      continue;
    cpus_by_node[core.numa_node].push_back(*it);
    ++usable;
  }
  if (usable == 0)
    return {WorkerGroupPlan{-1, {-1}}};

  int budget = usable;
  if (options.max_threads > 0)
    budget = std::min(budget, options.max_threads);
  if (options.cpu_quota)
    budget = std::min(budget, std::max(1, static_cast<int>(*options.cpu_quota)));

  std::vector<WorkerGroupPlan> groups;
  for (auto& [node, cpus] : cpus_by_node) {
    if (budget == 0)
      break;
    const auto take = std::min(static_cast<size_t>(budget), cpus.size());
    cpus.resize(take);
    budget -= static_cast<int>(take);
    if (options.numa || groups.empty()) {
      groups.push_back({node, cpus});
    } else {
      groups.front().cpus.insert(groups.front().cpus.end(), cpus.begin(), cpus.end());
    }
  }
  if (!options.numa)
    groups.front().numa_node = -1;
  return groups;
}

Status PinCurrentThread(int cpu) {
  if (cpu < 0)
    return Status::Ok();
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  const int err = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  if (err != 0) {
    return Status(StatusCode::kInternal, "cannot pin a worker to CPU " + std::to_string(cpu) +
                                             ": " + std::generic_category().message(err));
  }
  return Status::Ok();
}

std::string DescribeTopology(const Topology& t) {
  auto plural = [](int n, const char* what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
  };
  return plural(t.packages(), "package") + ", " + plural(t.numa_nodes(), "NUMA node") + ", " +
         plural(static_cast<int>(t.cores.size()), "core") + ", " +
         plural(t.hardware_threads(), "hardware thread");
}

}  // namespace ocr::sched
