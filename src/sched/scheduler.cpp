#include "sched/scheduler.h"

#include <algorithm>
#include <array>
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
  Mutex mu_;    // guards done_ and error_
  CondVar cv_;  // signalled when done_ reaches n_
  size_t done_ GUARDED_BY(mu_) = 0;
  std::exception_ptr error_ GUARDED_BY(mu_);
};

// The priority of the job the current worker thread runs (inline-run interactive jobs set it for
// their duration): what a ParallelFor's parts inherit.
thread_local Priority current_priority = Priority::kInteractive;

// While alive, the current thread runs work of `priority`; an interactive job (given
// `interactive_running`) also counts there while it runs.
class PriorityScope {
 public:
  PriorityScope(Priority priority, std::atomic<int>* interactive_running)
      : outer_(std::exchange(current_priority, priority)),
        running_(priority == Priority::kInteractive ? interactive_running : nullptr) {
    if (running_ != nullptr)
      running_->fetch_add(1);
  }

  ~PriorityScope() {
    current_priority = outer_;
    if (running_ != nullptr)
      running_->fetch_sub(1);
  }

  PriorityScope(const PriorityScope&) = delete;
  PriorityScope& operator=(const PriorityScope&) = delete;

 private:
  const Priority outer_;
  std::atomic<int>* const running_;
};

constexpr size_t Rank(Priority p) {
  return p == Priority::kInteractive ? 0 : 1;
}

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
    int sleeping = 0;  // workers waiting on the group's cv
    int woken = 0;     // of those, already notified (not yet running)
    // ParallelFors with unclaimed items, by Rank(priority).
    std::array<std::deque<std::shared_ptr<ForkJoin>>, 2> help;
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
  // Runs the oldest waiting interactive job on this thread, if there is one (a background job's
  // ParallelFor between two parts). False when none waits.
  bool RunInteractiveInline(int group) EXCLUDES(mu);

  // Runs one unclaimed part of a running interactive job of `group`, if there is one (a
  // background job's ParallelFor between two parts). False when there is none.
  bool HelpInteractive(int group) EXCLUDES(mu);

  // The first ParallelFor of `help` with unclaimed items, dropping exhausted ones.
  static std::shared_ptr<ForkJoin> NextHelp(std::deque<std::shared_ptr<ForkJoin>>& help) {
    while (!help.empty() && help.front()->exhausted())
      help.pop_front();
    return help.empty() ? nullptr : help.front();
  }

  const SchedulerConfig config;
  const std::vector<WorkerGroupPlan> plans;
  std::vector<std::unique_ptr<Group>> groups;            // set by the constructor, then read-only
  mutable Mutex mu;                                      // guards idle, queues and stopping
  std::vector<GroupIdle> idle GUARDED_BY(mu);            // one per group, same index
  std::array<std::deque<Job>, 2> queues GUARDED_BY(mu);  // by Rank(priority)
  std::atomic<size_t> interactive_waiting{0};            // queues[0].size(), read without mu
  std::atomic<int> interactive_running{0};               // interactive jobs being run
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
  const Priority priority = current_priority;
  if (helpers > 0) {
    MutexLock lock(&state_.mu);
    state_.idle[g].help[Rank(priority)].push_back(work);
    state_.Wake(g, helpers);
  }
  for (;;) {
    // Between two parts of background work: a waiting request first, then a part of a running
    // request (so a request gets the cores of its group back within one part).
    if (priority == Priority::kBackground) {
      if (state_.interactive_waiting.load() > 0 && state_.RunInteractiveInline(group_))
        continue;
      if (state_.interactive_running.load() > 0 && state_.HelpInteractive(group_))
        continue;
    }
    if (!work->RunOne())
      break;
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
    const PriorityScope scope(job.priority, &interactive_running);
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
    // Interactive before background; within each, new jobs first: a waiting request should
    // start before another one gets a second core.
    bool ran = false;
    for (size_t rank = 0; rank < queues.size() && !ran; ++rank) {
      if (!queues[rank].empty()) {
        Job job = std::move(queues[rank].front());
        queues[rank].pop_front();
        if (rank == 0)
          interactive_waiting.store(queues[0].size());
        busy.fetch_add(1);
        mu.Unlock();
        Execute(job, context);
        job = {};  // release captures before taking the lock
        busy.fetch_sub(1);
        mu.Lock();
        ran = true;
      } else if (std::shared_ptr<ForkJoin> work = NextHelp(idle[g].help[rank])) {
        mu.Unlock();
        work->RunOne();  // one item, then look for new jobs again
        work = nullptr;
        mu.Lock();
        ran = true;
      }
    }
    if (ran)
      continue;
    ++idle[g].sleeping;
    group.cv.Wait(&mu);
    --idle[g].sleeping;
    if (idle[g].woken > 0)
      --idle[g].woken;
  }
}

bool Scheduler::State::HelpInteractive(int group_index) {
  std::shared_ptr<ForkJoin> work;
  {
    MutexLock lock(&mu);
    work = NextHelp(idle[static_cast<size_t>(group_index)].help[0]);
  }
  if (!work)
    return false;
  const PriorityScope scope(Priority::kInteractive, nullptr);  // a part, not a job
  work->RunOne();
  return true;
}

bool Scheduler::State::RunInteractiveInline(int group_index) {
  Job job;
  {
    MutexLock lock(&mu);
    if (queues[0].empty() || stopping)
      return false;
    job = std::move(queues[0].front());
    queues[0].pop_front();
    interactive_waiting.store(queues[0].size());
  }
  // The worker index is not known here; the group is what a job uses.
  WorkerContext context{group_index, -1, groups[static_cast<size_t>(group_index)]->runner};
  busy.fetch_add(1);
  Execute(job, context);
  busy.fetch_sub(1);
  return true;
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
    std::deque<Job>& queue = s.queues[Rank(job.priority)];
    if (job.priority == Priority::kInteractive) {
      if (queue.size() >= s.config.queue_capacity) {
        return Status(StatusCode::kResourceExhausted,
                      "all " + std::to_string(queue.size()) + " queue places are taken");
      }
      s.interactive_waiting.store(queue.size() + 1);
    }
    queue.push_back(std::move(job));
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
    for (std::deque<Job>& queue : s.queues) {
      for (Job& job : queue)
        dropped.push_back(std::move(job));
      queue.clear();
    }
    s.interactive_waiting.store(0);
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
  return s.queues[0].size() + s.queues[1].size();
}

bool Scheduler::full() const {
  const State& s = *state_;
  MutexLock lock(&s.mu);
  return s.queues[0].size() >= s.config.queue_capacity;
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
