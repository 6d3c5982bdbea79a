#include "cli/inference_workers.h"

#include <spdlog/spdlog.h>

#include "sched/cgroup_limits.h"
#include "sched/topology.h"

namespace ocr::cli {
namespace {

std::size_t WorkerCount(const std::vector<sched::WorkerGroupPlan>& plan) {
  std::size_t n = 0;
  for (const sched::WorkerGroupPlan& g : plan)
    n += g.cpus.size();
  return n;
}

}  // namespace

void AddWorkerFlags(CLI::App& cmd, WorkerFlags& flags) {
  cmd.add_option("--threads", flags.threads,
                 "Inference workers at most (0 = one per usable core, within the CPU affinity "
                 "mask and cgroup quota)")
      ->envname("ONNXOCR_THREADS")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  cmd.add_option("--numa", flags.numa,
                 "on: one worker group (own model copies) per NUMA node; off: one group")
      ->envname("ONNXOCR_NUMA")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  cmd.add_option("--queue-size", flags.queue_size, "Requests that may wait for a worker")
      ->envname("ONNXOCR_QUEUE_SIZE")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
}

InferenceWorkers::~InferenceWorkers() {
  if (scheduler_)
    scheduler_->Stop();
}

Result<std::unique_ptr<InferenceWorkers>> InferenceWorkers::Start(
    const std::vector<ModelSpec>& specs, const WorkerFlags& flags,
    const engine::SessionConfig& session, bool warm_up) {
  OCR_ASSIGN_OR_RETURN(sched::Topology topology, sched::DiscoverTopology());
  sched::PlacementOptions placement;
  placement.max_threads = flags.threads;
  placement.numa = flags.numa != "off";
  placement.cpu_quota = sched::CgroupCpuQuota();
  const std::vector<int> allowed = sched::AllowedCpus();
  std::vector<sched::WorkerGroupPlan> plan = sched::PlanWorkerGroups(topology, allowed, placement);
  // Workers are pinned only when they take every usable core. A process capped below that
  // (--threads, a CFS quota) shares the cores with others, such as sibling replicas on one host;
  // each would pin its workers to the same first cores and they would all queue there, while
  // the kernel spreads unpinned threads over the idle ones.
  sched::PlacementOptions uncapped = placement;
  uncapped.max_threads = 0;
  uncapped.cpu_quota.reset();
  const std::size_t workers = WorkerCount(plan);
  const std::size_t usable = WorkerCount(sched::PlanWorkerGroups(topology, allowed, uncapped));
  const bool pin = workers >= usable;

  std::unique_ptr<InferenceWorkers> w(new InferenceWorkers());
  w->sets_.resize(plan.size());
  w->pipelines_.resize(plan.size());
  w->description_ = sched::DescribeTopology(topology) + "; " + std::to_string(plan.size()) +
                    " worker group" + (plan.size() == 1 ? "" : "s") + " of";
  for (const auto& g : plan)
    w->description_ += " " + std::to_string(g.cpus.size());
  if (placement.cpu_quota)
    w->description_ += "; cgroup CPU quota " + std::to_string(*placement.cpu_quota);
  if (!pin) {
    w->description_ += "; not pinned (" + std::to_string(workers) + " of " +
                       std::to_string(usable) + " usable cores)";
  }

  sched::SchedulerConfig config;
  config.queue_capacity = static_cast<size_t>(std::max(1, flags.queue_size));
  config.pin_threads = pin;
  InferenceWorkers* raw = w.get();
  auto load_group = [raw, &specs, &session, warm_up](int group) -> Status {
    const auto g = static_cast<size_t>(group);
    for (const ModelSpec& spec : specs) {
      OCR_ASSIGN_OR_RETURN(auto set,
                           pipeline::LoadModelSet(raw->runtime_, spec.name, spec.dir, session));
      raw->sets_[g].push_back(std::move(set));
      raw->pipelines_[g].push_back(std::make_unique<pipeline::Pipeline>(*raw->sets_[g].back()));
      // The first request should not pay for ONNX Runtime's first-run allocations. A set that
      // fails here may still read other inputs, so it is served (and its failures answered 500
      // per request), with a warning.
      if (!warm_up)
        continue;
      if (Status warm = raw->pipelines_[g].back()->WarmUp(); !warm.ok())
        spdlog::warn("{}", warm.message());
    }
    return Status::Ok();
  };
  OCR_ASSIGN_OR_RETURN(w->scheduler_, sched::Scheduler::Start(std::move(plan), config, load_group));
  return w;
}

std::vector<std::vector<const pipeline::Pipeline*>> InferenceWorkers::pipelines() const {
  std::vector<std::vector<const pipeline::Pipeline*>> out;
  for (const auto& group : pipelines_) {
    out.emplace_back();
    for (const auto& p : group)
      out.back().push_back(p.get());
  }
  return out;
}

}  // namespace ocr::cli
