#include "sched/scheduler.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <exception>
#include <optional>
#include <thread>

#include <spdlog/spdlog.h>

#include "common/mutex.h"

namespace ocr::sched {
namespace {

// The shared state of one ParallelFor: items are claimed with an atomic counter, so the caller
// and any number of helpers can take them without a lock.
class ForkJoin {
 public:
  ForkJoin(size_t n, const std::function<void(size_t)>& fn) : n_(n), fn_(fn) {}

  // Runs the next unclaimed item; false when every item is claimed.
  // REQUIRES: a caller in Wait() keeps fn alive until every claimed item finished.
  bool RunOne() EXCLUDES(mu_) {
    const size_t i = next_.fetch_add(1);
    if (i >= n_)
      return false;
    std::exception_ptr error;
    try {
      fn_(i);
    } catch (...) {
      error = std::current_exception();
    }
    MutexLock lock(&mu_);
    if (error && !error_)
      error_ = error;
    if (++done_ == n_)
      cv_.SignalAll();
    return true;
  }

  bool exhausted() const { return next_.load() >= n_; }

  // Blocks until every item finished; rethrows the first exception an item threw.
  void Wait() EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    while (done_ != n_)
      cv_.Wait(&mu_);
    if (error_)
      std::rethrow_exception(error_);
  }

 private:
  const size_t n_;
  const std::function<void(size_t)>& fn_;
  std::atomic<size_t> next_{0};
  Mutex mu_;
  CondVar cv_;  // signalled when done_ reaches n_
  size_t done_ GUARDED_BY(mu_) = 0;
  std::exception_ptr error_ GUARDED_BY(mu_);
};

class GroupRunner final : public TaskRunner {
 public:
  GroupRunner(Scheduler::State& state, int group) : state_(state), group_(group) {}

  void ParallelFor(size_t n, const std::function<void(size_t)>& fn) override;

 private:
  Scheduler::State& state_;
  const int group_;
};

}  // namespace

struct Scheduler::State {
  // The fixed part of a worker group, read without the lock.
  struct Group {
    Group(State& state, int index, WorkerGroupPlan p) : plan(std::move(p)), runner(state, index) {}

    WorkerGroupPlan plan;
    GroupRunner runner;
    CondVar cv;  // its idle workers wait here, with mu
  };

  // The changing part of a worker group, in `idle` under mu (an annotation cannot name the
  // State's mutex from inside Group).
  struct GroupIdle {
    int sleeping = 0;                            // workers waiting on the group's cv
    int woken = 0;                               // of those, already notified (not yet running)
    std::deque<std::shared_ptr<ForkJoin>> help;  // ParallelFors with unclaimed items
  };

  State(std::vector<WorkerGroupPlan> plan, SchedulerConfig c)
      : config(c), plans(std::move(plan)), idle(plans.size()) {
    for (size_t g = 0; g < plans.size(); ++g)
      groups.push_back(std::make_unique<Group>(*this, static_cast<int>(g), plans[g]));
  }

  int FreeSleepers(size_t g) const REQUIRES(mu) { return idle[g].sleeping - idle[g].woken; }

  // Wakes up to `n` idle workers of group `g`.
  void Wake(size_t g, int n) REQUIRES(mu) {
    for (int i = 0; i < n && FreeSleepers(g) > 0; ++i) {
      ++idle[g].woken;
      groups[g]->cv.Signal();
    }
  }

  void WorkerLoop(int group, int worker) EXCLUDES(mu);
  void Execute(Job& job, WorkerContext& context);

  const SchedulerConfig config;
  const std::vector<WorkerGroupPlan> plans;
  std::vector<std::unique_ptr<Group>> groups;  // set by the constructor, then read-only
  mutable Mutex mu;
  std::vector<GroupIdle> idle GUARDED_BY(mu);  // one per group, same index
  std::deque<Job> queue GUARDED_BY(mu);
  bool stopping GUARDED_BY(mu) = false;
  std::atomic<int> busy{0};
  std::vector<std::jthread> threads;  // Start() and Stop() only
};

namespace {

void GroupRunner::ParallelFor(size_t n, const std::function<void(size_t)>& fn) {
  if (n == 0)
    return;
  const auto g = static_cast<size_t>(group_);
  auto work = std::make_shared<ForkJoin>(n, fn);
  const int helpers = static_cast<int>(
      std::min(n - 1, std::max<size_t>(state_.groups[g]->plan.cpus.size(), 1) - 1));
  if (helpers > 0) {
    MutexLock lock(&state_.mu);
    state_.idle[g].help.push_back(work);
    state_.Wake(g, helpers);
  }
  while (work->RunOne()) {
  }
  work->Wait();
}

}  // namespace

void Scheduler::State::Execute(Job& job, WorkerContext& context) {
  try {
    if (job.cancel.stop_requested() || Clock::now() > job.deadline) {
      const Status why = job.cancel.stop_requested()
                             ? Cancelled()
                             : Status(StatusCode::kDeadlineExceeded, "deadline passed in queue");
      if (job.dropped)
        job.dropped(why);
      return;
    }
    job.run(context);
  } catch (const std::exception& e) {
    spdlog::error("scheduler: a job threw: {}", e.what());
  } catch (...) {
    spdlog::error("scheduler: a job threw a non-exception");
  }
}

void Scheduler::State::WorkerLoop(int group_index, int worker) {
  const auto g = static_cast<size_t>(group_index);
  Group& group = *groups[g];
  WorkerContext context{group_index, worker, group.runner};
  MutexLock lock(&mu);
  while (!stopping) {
    // New jobs first: a waiting request should start before another one gets a second core.
    if (!queue.empty()) {
      Job job = std::move(queue.front());
      queue.pop_front();
      busy.fetch_add(1);
      mu.Unlock();
      Execute(job, context);
      job = {};  // release captures before taking the lock
      busy.fetch_sub(1);
      mu.Lock();
      continue;
    }
    while (!idle[g].help.empty() && idle[g].help.front()->exhausted())
      idle[g].help.pop_front();
    if (!idle[g].help.empty()) {
      std::shared_ptr<ForkJoin> work = idle[g].help.front();
      mu.Unlock();
      work->RunOne();  // one item, then look for new jobs again
      mu.Lock();
      continue;
    }
    ++idle[g].sleeping;
    group.cv.Wait(&mu);
    --idle[g].sleeping;
    if (idle[g].woken > 0)
      --idle[g].woken;
  }
}

Scheduler::Scheduler(std::unique_ptr<State> state) : state_(std::move(state)) {}

Scheduler::~Scheduler() {
  Stop();
}

Result<std::unique_ptr<Scheduler>> Scheduler::Start(std::vector<WorkerGroupPlan> plan,
                                                    SchedulerConfig config,
                                                    const std::function<Status(int group)>& init) {
  if (plan.empty())
    return InvalidArgument("a scheduler needs at least one worker group");
  for (WorkerGroupPlan& g : plan) {
    if (g.cpus.empty())
      g.cpus.push_back(-1);
  }
  auto state = std::make_unique<State>(std::move(plan), config);
  if (init) {
    for (size_t g = 0; g < state->plans.size(); ++g) {
      Status status;
      std::thread loader([&] {
        if (config.pin_threads)
          (void)PinCurrentThread(state->plans[g].cpus.front());
        status = init(static_cast<int>(g));
      });
      loader.join();
      OCR_RETURN_IF_ERROR(status);
    }
  }
  int worker = 0;
  State* s = state.get();
  for (size_t g = 0; g < s->plans.size(); ++g) {
    for (int cpu : s->plans[g].cpus) {
      s->threads.emplace_back([s, g, worker, cpu, pin = config.pin_threads] {
        if (pin) {
          if (Status pinned = PinCurrentThread(cpu); !pinned.ok())
            spdlog::warn("{}", pinned.message());
        }
        s->WorkerLoop(static_cast<int>(g), worker);
      });
      ++worker;
    }
  }
  return std::unique_ptr<Scheduler>(new Scheduler(std::move(state)));
}

Status Scheduler::Submit(Job job) {
  State& s = *state_;
  {
    MutexLock lock(&s.mu);
    if (s.stopping)
      return Cancelled();
    if (s.queue.size() >= s.config.queue_capacity) {
      return Status(StatusCode::kResourceExhausted,
                    "all " + std::to_string(s.queue.size()) + " queue places are taken");
    }
    s.queue.push_back(std::move(job));
    // Wake the group with the most idle workers; when none is idle, a worker that finishes
    // its job takes this one.
    std::optional<size_t> target;
    for (size_t g = 0; g < s.groups.size(); ++g) {
      if (s.FreeSleepers(g) > 0 && (!target || s.FreeSleepers(g) > s.FreeSleepers(*target)))
        target = g;
    }
    if (target)
      s.Wake(*target, 1);
  }
  return Status::Ok();
}

void Scheduler::Stop() {
  State& s = *state_;
  std::deque<Job> dropped;
  {
    MutexLock lock(&s.mu);
    if (s.stopping && s.threads.empty())
      return;
    s.stopping = true;
    dropped.swap(s.queue);
    for (auto& g : s.groups)
      g->cv.SignalAll();
  }
  for (Job& job : dropped) {
    if (job.dropped)
      job.dropped(Status(StatusCode::kCancelled, "the server is shutting down"));
  }
  s.threads.clear();  // joins; running jobs finish first
}

size_t Scheduler::queued() const {
  const State& s = *state_;
  MutexLock lock(&s.mu);
  return s.queue.size();
}

bool Scheduler::full() const {
  const State& s = *state_;
  MutexLock lock(&s.mu);
  return s.queue.size() >= s.config.queue_capacity;
}

size_t Scheduler::capacity() const {
  return state_->config.queue_capacity;
}

int Scheduler::busy() const {
  return state_->busy.load();
}

int Scheduler::worker_count() const {
  int n = 0;
  for (const WorkerGroupPlan& g : state_->plans)
    n += static_cast<int>(g.cpus.size());
  return n;
}

const std::vector<WorkerGroupPlan>& Scheduler::plan() const {
  return state_->plans;
}

TaskRunner& Scheduler::runner(int group) {
  return state_->groups.at(static_cast<size_t>(group))->runner;
}

}  // namespace ocr::sched
