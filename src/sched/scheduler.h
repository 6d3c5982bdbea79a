// The inference scheduler: one bounded, deadline-aware admission queue in front of worker groups
// (one group per NUMA node, one worker thread pinned to each core). Jobs are type-erased; the
// scheduler knows nothing of OCR.
//
// Two priorities: interactive jobs (single requests a person waits for) run before background
// jobs (the pages of long documents). A worker looks for work in this order: an interactive job,
// an unclaimed part of an interactive job, a background job, a part of a background job. A worker
// running parts of a background job also runs, between two parts, a waiting interactive job or a
// part of a running one, so an interactive request waits for at most one part (a recognition
// batch) to have its core, and the other cores of its group, back: not for a whole page.
//
// How work spreads: an idle worker takes the next admitted job and runs it. A job that has
// independent parts (the recognition batches of one image, the pages of a document) hands them to
// ParallelFor on its group's TaskRunner; the job's own thread runs parts, and idle workers of the
// same group join in. Workers take new jobs before helping, so under load every request runs on
// one core with no contention, while a lone request gets every core of its group. A new job is
// woken on the group with the most idle workers (least loaded).
//
// Invariants: at most queue_capacity interactive jobs wait (background jobs are bounded by their
// callers); every admitted job is either run or handed to its
// `dropped` callback exactly once (deadline passed or cancelled while queued, or Stop()).
// Thread-safety: Submit(), queued(), busy() and the runners are safe from any thread.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <stop_token>
#include <vector>

#include "common/status.h"
#include "common/task_runner.h"
#include "sched/topology.h"

namespace ocr::sched {

using Clock = std::chrono::steady_clock;

// What a running job knows about where it runs.
struct WorkerContext {
  int group = 0;       // index into the plan
  int worker = 0;      // index over all workers
  TaskRunner& runner;  // ParallelFor over this worker's group
};

enum class Priority { kInteractive, kBackground };

struct Job {
  std::function<void(WorkerContext&)> run;
  Priority priority = Priority::kInteractive;
  // A job still queued at its deadline, or whose `cancel` was requested, is not run:
  // `dropped` gets kDeadlineExceeded or kCancelled instead (also kCancelled from Stop()).
  Clock::time_point deadline = Clock::time_point::max();
  std::stop_token cancel;
  std::function<void(const Status&)> dropped;  // may be empty; runs on a worker or in Stop()
};

struct SchedulerConfig {
  size_t queue_capacity = 64;  // interactive jobs waiting for a worker; Submit refuses beyond it
  bool pin_threads = true;     // pin each worker to its CPU (off: leave placement to the kernel)
};

class Scheduler {
 public:
  // Starts the workers of `plan`. Before a group serves, init(group) runs on a thread pinned to
  // the group's first CPU, so what it allocates (model sessions) lands in that node's memory.
  // Errors: the first failing init's Status (no worker is left running).
  static Result<std::unique_ptr<Scheduler>> Start(
      std::vector<WorkerGroupPlan> plan, SchedulerConfig config,
      const std::function<Status(int group)>& init = {});

  ~Scheduler();  // Stop()
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Admits a job. Errors: kResourceExhausted when the interactive queue is full (background jobs
  // are always admitted); kCancelled after Stop().
  Status Submit(Job job);

  // Refuses new jobs, drops the queued ones (kCancelled), waits for running jobs, joins the
  // workers. Idempotent.
  void Stop();

  size_t queued() const;  // jobs waiting, of both priorities
  bool full() const;      // the interactive queue is full
  int busy() const;       // jobs running now
  size_t capacity() const;
  int worker_count() const;
  const std::vector<WorkerGroupPlan>& plan() const;

  // ParallelFor over `group`'s workers, for callers outside a job (tests, warm-up).
  TaskRunner& runner(int group);

  struct State;

 private:
  explicit Scheduler(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace ocr::sched
