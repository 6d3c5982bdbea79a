#include "sched/scheduler.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include <spdlog/spdlog.h>

namespace ocr::sched {
namespace {

// The shared state of one ParallelFor: items are claimed with an atomic counter, so the caller
// and any number of helpers can take them without a lock.
class ForkJoin {
 public:
  ForkJoin(size_t n, const std::function<void(size_t)>& fn) : n_(n), fn_(fn) {}

  // Runs the next unclaimed item; false when every item is claimed.
  // REQUIRES: a caller in Wait() keeps fn alive until every claimed item finished.
  bool RunOne() {
    const size_t i = next_.fetch_add(1);
    if (i >= n_)
      return false;
    std::exception_ptr error;
    try {
      fn_(i);
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(mu_);
    if (error && !error_)
      error_ = error;
    if (++done_ == n_)
      cv_.notify_all();
    return true;
  }

  bool exhausted() const { return next_.load() >= n_; }

  // Blocks until every item finished; rethrows the first exception an item threw.
  void Wait() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return done_ == n_; });
    if (error_)
      std::rethrow_exception(error_);
  }

 private:
  const size_t n_;
  const std::function<void(size_t)>& fn_;
  std::atomic<size_t> next_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  size_t done_ = 0;           // guarded by mu_
  std::exception_ptr error_;  // guarded by mu_
};

class GroupRunner final : public TaskRunner {
 public:
  GroupRunner(Scheduler::State& state, int group) : state_(state), group_(group) {}

  void ParallelFor(size_t n, const std::function<void(size_t)>& fn) override;
  int IdleThreads() const override;

 private:
  Scheduler::State& state_;
  const int group_;
};

}  // namespace

struct Scheduler::State {
  struct Group {
    Group(State& state, int index, WorkerGroupPlan p) : plan(std::move(p)), runner(state, index) {}

    WorkerGroupPlan plan;
    GroupRunner runner;
    // All guarded by State::mu.
    std::condition_variable cv;                  // its idle workers wait here
    int sleeping = 0;                            // workers waiting on cv
    int woken = 0;                               // of those, already notified (not yet running)
    std::deque<std::shared_ptr<ForkJoin>> help;  // ParallelFors with unclaimed items
  };

  State(std::vector<WorkerGroupPlan> plan, SchedulerConfig c) : config(c), plans(std::move(plan)) {
    for (size_t g = 0; g < plans.size(); ++g)
      groups.push_back(std::make_unique<Group>(*this, static_cast<int>(g), plans[g]));
  }

  int FreeSleepers(const Group& g) const { return g.sleeping - g.woken; }

  // Wakes up to `n` idle workers of `g`. REQUIRES: mu held.
  void Wake(Group& g, int n) {
    for (int i = 0; i < n && FreeSleepers(g) > 0; ++i) {
      ++g.woken;
      g.cv.notify_one();
    }
  }

  void WorkerLoop(int group, int worker);
  void Execute(Job& job, WorkerContext& context);

  const SchedulerConfig config;
  const std::vector<WorkerGroupPlan> plans;
  std::vector<std::unique_ptr<Group>> groups;
  std::mutex mu;
  std::deque<Job> queue;  // guarded by mu
  bool stopping = false;  // guarded by mu
  std::atomic<int> busy{0};
  std::vector<std::jthread> threads;
};

namespace {

void GroupRunner::ParallelFor(size_t n, const std::function<void(size_t)>& fn) {
  if (n == 0)
    return;
  auto& group = *state_.groups[static_cast<size_t>(group_)];
  auto work = std::make_shared<ForkJoin>(n, fn);
  const int helpers =
      static_cast<int>(std::min(n - 1, std::max<size_t>(group.plan.cpus.size(), 1) - 1));
  if (helpers > 0) {
    std::lock_guard lock(state_.mu);
    group.help.push_back(work);
    state_.Wake(group, helpers);
  }
  while (work->RunOne()) {
  }
  work->Wait();
}

int GroupRunner::IdleThreads() const {
  std::lock_guard lock(state_.mu);
  return state_.FreeSleepers(*state_.groups[static_cast<size_t>(group_)]);
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
  Group& group = *groups[static_cast<size_t>(group_index)];
  WorkerContext context{group_index, worker, group.runner};
  std::unique_lock lock(mu);
  while (!stopping) {
    // New jobs first: a waiting request should start before another one gets a second core.
    if (!queue.empty()) {
      Job job = std::move(queue.front());
      queue.pop_front();
      busy.fetch_add(1);
      lock.unlock();
      Execute(job, context);
      job = {};  // release captures before taking the lock
      busy.fetch_sub(1);
      lock.lock();
      continue;
    }
    while (!group.help.empty() && group.help.front()->exhausted())
      group.help.pop_front();
    if (!group.help.empty()) {
      std::shared_ptr<ForkJoin> work = group.help.front();
      lock.unlock();
      work->RunOne();  // one item, then look for new jobs again
      lock.lock();
      continue;
    }
    ++group.sleeping;
    group.cv.wait(lock);
    --group.sleeping;
    if (group.woken > 0)
      --group.woken;
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
    std::lock_guard lock(s.mu);
    if (s.stopping)
      return Cancelled();
    if (s.queue.size() >= s.config.queue_capacity) {
      return Status(StatusCode::kResourceExhausted,
                    "all " + std::to_string(s.queue.size()) + " queue places are taken");
    }
    s.queue.push_back(std::move(job));
    // Wake the group with the most idle workers; when none is idle, a worker that finishes
    // its job takes this one.
    State::Group* target = nullptr;
    for (auto& g : s.groups) {
      if (s.FreeSleepers(*g) > 0 && (!target || s.FreeSleepers(*g) > s.FreeSleepers(*target)))
        target = g.get();
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
    std::lock_guard lock(s.mu);
    if (s.stopping && s.threads.empty())
      return;
    s.stopping = true;
    dropped.swap(s.queue);
    for (auto& g : s.groups)
      g->cv.notify_all();
  }
  for (Job& job : dropped) {
    if (job.dropped)
      job.dropped(Status(StatusCode::kCancelled, "the server is shutting down"));
  }
  s.threads.clear();  // joins; running jobs finish first
}

size_t Scheduler::queued() const {
  std::lock_guard lock(state_->mu);
  return state_->queue.size();
}

bool Scheduler::full() const {
  std::lock_guard lock(state_->mu);
  return state_->queue.size() >= state_->config.queue_capacity;
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
