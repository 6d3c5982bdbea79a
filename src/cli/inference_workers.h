// The inference side of `serve` and `bench`: worker groups placed on this machine's cores (one
// per NUMA node), each with its own copy of every model set, loaded and warmed up by a thread on
// that node, behind one scheduler. The flags that shape it are declared here once.
// Thread-safety: start from main(); the scheduler and pipelines are then safe from any thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/model_flags.h"
#include "common/status.h"
#include "engine/ort_model.h"
#include "pipeline/model_set.h"
#include "pipeline/pipeline.h"
#include "sched/scheduler.h"

namespace ocr::cli {

struct WorkerFlags {
  int threads = 0;          // workers at most; 0 = one per usable core (affinity, cgroup quota)
  std::string numa = "on";  // on: one group per NUMA node; off: one group
  int queue_size = 64;      // admitted requests waiting for a worker
};

// Declares --threads, --numa and --queue-size (with ONNXOCR_* environment variables).
void AddWorkerFlags(CLI::App& cmd, WorkerFlags& flags);

class InferenceWorkers {
 public:
  // Plans the groups, loads every set of `specs` in each group with `session` settings (by
  // default one thread per Run: requests run side by side on the workers instead), warms it up
  // unless `warm_up` is false (a run that reads its files and exits pays first-run costs once
  // either way), then starts the workers. Errors: kModelLoadFailed naming the file; kInternal
  // (topology).
  static Result<std::unique_ptr<InferenceWorkers>> Start(const std::vector<ModelSpec>& specs,
                                                         const WorkerFlags& flags,
                                                         const engine::SessionConfig& session = {},
                                                         bool warm_up = true);

  ~InferenceWorkers();
  InferenceWorkers(const InferenceWorkers&) = delete;
  InferenceWorkers& operator=(const InferenceWorkers&) = delete;

  sched::Scheduler& scheduler() { return *scheduler_; }

  const engine::Runtime& runtime() const { return runtime_; }

  // [group][set]: the pipelines of each group, sets in the order of `specs`.
  std::vector<std::vector<const pipeline::Pipeline*>> pipelines() const;

  // "2 packages, 2 NUMA nodes, ...; 2 worker groups of 8, 8" for the start-up log.
  const std::string& description() const { return description_; }

 private:
  InferenceWorkers() = default;

  // Declared in dependency order: destroyed scheduler first, runtime last.
  engine::Runtime runtime_;
  std::vector<std::vector<std::unique_ptr<pipeline::ModelSet>>> sets_;
  std::vector<std::vector<std::unique_ptr<pipeline::Pipeline>>> pipelines_;
  std::unique_ptr<sched::Scheduler> scheduler_;
  std::string description_;
};

}  // namespace ocr::cli
