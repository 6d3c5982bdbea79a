// The scheduler with real threads: admission, deadlines, cancellation, fairness, routing and
// ParallelFor. Jobs synchronise with latches and futures; nothing asserts on elapsed time.
#include "sched/scheduler.h"

#include <array>
#include <atomic>
#include <future>
#include <latch>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace ocr::sched {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<Scheduler> StartScheduler(std::vector<WorkerGroupPlan> plan, size_t capacity = 8) {
  SchedulerConfig config;
  config.queue_capacity = capacity;
  config.pin_threads = false;  // the test machine may have fewer CPUs than the plan
  auto s = Scheduler::Start(std::move(plan), config);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s).value() : nullptr;
}

std::vector<WorkerGroupPlan> OneGroup(int workers) {
  return {WorkerGroupPlan{0, std::vector<int>(static_cast<size_t>(workers), -1)}};
}

// A job that blocks its worker until released.
struct Blocker {
  std::latch started{1};
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();

  Job MakeJob() {
    Job job;
    job.run = [this](WorkerContext&) {
      started.count_down();
      released.wait();
    };
    return job;
  }
};

TEST(SchedulerTest, RunsJobsAndReportsWhere) {
  auto s = StartScheduler(OneGroup(2));
  std::promise<std::pair<int, int>> where;
  Job job;
  job.run = [&](WorkerContext& c) { where.set_value({c.group, c.worker}); };
  ASSERT_TRUE(s->Submit(std::move(job)).ok());
  const auto [group, worker] = where.get_future().get();
  EXPECT_EQ(group, 0);
  EXPECT_GE(worker, 0);
  EXPECT_LT(worker, 2);
  EXPECT_EQ(s->worker_count(), 2);
}

TEST(SchedulerTest, BoundedQueueRefusesWhenFull) {
  auto s = StartScheduler(OneGroup(1), /*capacity=*/2);
  Blocker blocker;
  ASSERT_TRUE(s->Submit(blocker.MakeJob()).ok());
  blocker.started.wait();  // the worker is busy; the queue is empty
  std::latch ran(2);
  auto counting = [&] {
    Job j;
    j.run = [&](WorkerContext&) { ran.count_down(); };
    return j;
  };
  EXPECT_TRUE(s->Submit(counting()).ok());
  EXPECT_TRUE(s->Submit(counting()).ok());
  EXPECT_TRUE(s->full());
  const Status refused = s->Submit(counting());
  EXPECT_EQ(refused.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(s->queued(), 2u);
  blocker.release.set_value();
  ran.wait();  // both admitted jobs run
}

TEST(SchedulerTest, JobPastItsDeadlineIsDroppedNotRun) {
  auto s = StartScheduler(OneGroup(1));
  Blocker blocker;
  ASSERT_TRUE(s->Submit(blocker.MakeJob()).ok());
  blocker.started.wait();
  std::promise<StatusCode> dropped;
  bool ran = false;
  Job late;
  late.run = [&](WorkerContext&) { ran = true; };
  late.deadline = Clock::now() - 1ms;  // expires while queued behind the blocker
  late.dropped = [&](const Status& why) { dropped.set_value(why.code()); };
  ASSERT_TRUE(s->Submit(std::move(late)).ok());
  blocker.release.set_value();
  EXPECT_EQ(dropped.get_future().get(), StatusCode::kDeadlineExceeded);
  s->Stop();
  EXPECT_FALSE(ran);
}

TEST(SchedulerTest, CancelledJobIsDroppedNotRun) {
  auto s = StartScheduler(OneGroup(1));
  Blocker blocker;
  ASSERT_TRUE(s->Submit(blocker.MakeJob()).ok());
  blocker.started.wait();
  std::stop_source client;
  std::promise<StatusCode> dropped;
  bool ran = false;
  Job job;
  job.run = [&](WorkerContext&) { ran = true; };
  job.cancel = client.get_token();
  job.dropped = [&](const Status& why) { dropped.set_value(why.code()); };
  ASSERT_TRUE(s->Submit(std::move(job)).ok());
  client.request_stop();  // the client went away while the job waited
  blocker.release.set_value();
  EXPECT_EQ(dropped.get_future().get(), StatusCode::kCancelled);
  s->Stop();
  EXPECT_FALSE(ran);
}

TEST(SchedulerTest, StopDropsQueuedJobsAndFinishesRunningOnes) {
  auto s = StartScheduler(OneGroup(1));
  Blocker blocker;
  std::atomic<bool> finished{false};
  Job running = blocker.MakeJob();
  running.run = [&, inner = running.run](WorkerContext& c) {
    inner(c);
    finished = true;
  };
  ASSERT_TRUE(s->Submit(std::move(running)).ok());
  blocker.started.wait();
  std::promise<StatusCode> dropped;
  Job queued;
  queued.run = [](WorkerContext&) {};
  queued.dropped = [&](const Status& why) { dropped.set_value(why.code()); };
  ASSERT_TRUE(s->Submit(std::move(queued)).ok());
  std::thread stopper([&] { s->Stop(); });
  EXPECT_EQ(dropped.get_future().get(), StatusCode::kCancelled);
  blocker.release.set_value();
  stopper.join();
  EXPECT_TRUE(finished);
  Job after;
  after.run = [](WorkerContext&) {};
  EXPECT_EQ(s->Submit(std::move(after)).code(), StatusCode::kCancelled);
}

TEST(SchedulerTest, LoneJobSpreadsItsPartsOverTheGroup) {
  auto s = StartScheduler(OneGroup(2));
  std::promise<std::set<std::thread::id>> threads;
  Job job;
  job.run = [&](WorkerContext& c) {
    std::mutex mu;
    std::set<std::thread::id> seen;
    std::latch both_running(2);
    c.runner.ParallelFor(2, [&](size_t) {
      {
        std::lock_guard lock(mu);
        seen.insert(std::this_thread::get_id());
      }
      // Only returns once two threads run parts at the same time (or after the timeout, and
      // then the assertion below fails).
      both_running.count_down();
      for (int i = 0; i < 1000 && !both_running.try_wait(); ++i)
        std::this_thread::sleep_for(10ms);
    });
    threads.set_value(seen);
  };
  ASSERT_TRUE(s->Submit(std::move(job)).ok());
  EXPECT_EQ(threads.get_future().get().size(), 2u);
}

TEST(SchedulerTest, ParallelForRunsEveryItemOnceAndRethrows) {
  auto s = StartScheduler(OneGroup(3));
  std::vector<std::atomic<int>> hits(500);
  s->runner(0).ParallelFor(hits.size(), [&](size_t i) { hits[i].fetch_add(1); });
  for (const auto& h : hits)
    EXPECT_EQ(h.load(), 1);
  EXPECT_THROW(s->runner(0).ParallelFor(10,
                                        [](size_t i) {
                                          if (i == 7)
                                            throw std::runtime_error("item 7");
                                        }),
               std::runtime_error);
}

TEST(SchedulerTest, NestedParallelForCompletes) {
  auto s = StartScheduler(OneGroup(2));
  std::atomic<int> total{0};
  s->runner(0).ParallelFor(
      4, [&](size_t) { s->runner(0).ParallelFor(25, [&](size_t) { total.fetch_add(1); }); });
  EXPECT_EQ(total.load(), 100);
}

TEST(SchedulerTest, SmallRequestIsNotStuckBehindALargeOne) {
  // Two workers. A large job spreads 200 parts over both; a small job that arrives meanwhile
  // takes the helper as soon as it finishes its current part, long before the large job is done.
  auto s = StartScheduler(OneGroup(2));
  constexpr int kParts = 200;
  std::atomic<int> parts_done{0};
  std::latch large_started(1);
  std::promise<void> large_done;
  Job large;
  large.run = [&](WorkerContext& c) {
    c.runner.ParallelFor(kParts, [&](size_t i) {
      if (i == 0)
        large_started.count_down();
      std::this_thread::sleep_for(2ms);  // a recognition batch
      parts_done.fetch_add(1);
    });
    large_done.set_value();
  };
  ASSERT_TRUE(s->Submit(std::move(large)).ok());
  large_started.wait();
  std::promise<int> small_saw;
  Job small;
  small.run = [&](WorkerContext&) { small_saw.set_value(parts_done.load()); };
  ASSERT_TRUE(s->Submit(std::move(small)).ok());
  const int done_when_small_ran = small_saw.get_future().get();
  large_done.get_future().wait();
  EXPECT_LT(done_when_small_ran, kParts / 2);
  EXPECT_EQ(parts_done.load(), kParts);
}

TEST(SchedulerTest, ConcurrentJobsAreRoutedToBothGroups) {
  // Two single-worker groups (two NUMA nodes): two blocking jobs must occupy both.
  auto s = StartScheduler({WorkerGroupPlan{0, {-1}}, WorkerGroupPlan{1, {-1}}});
  std::mutex mu;
  std::set<int> groups;
  std::latch both(2);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  for (int i = 0; i < 2; ++i) {
    Job job;
    job.run = [&](WorkerContext& c) {
      {
        std::lock_guard lock(mu);
        groups.insert(c.group);
      }
      both.count_down();
      released.wait();
    };
    ASSERT_TRUE(s->Submit(std::move(job)).ok());
  }
  both.wait();
  EXPECT_EQ(groups, (std::set<int>{0, 1}));
  EXPECT_EQ(s->busy(), 2);
  release.set_value();
  s->Stop();  // the workers still read `released` until they return (UBSan saw it destroyed)
}

TEST(SchedulerTest, InitRunsOncePerGroupBeforeServing) {
  std::vector<int> inited;
  SchedulerConfig config;
  config.pin_threads = false;
  auto s = Scheduler::Start({WorkerGroupPlan{0, {-1}}, WorkerGroupPlan{1, {-1, -1}}}, config,
                            [&](int group) {
                              inited.push_back(group);
                              return Status::Ok();
                            });
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(inited, (std::vector<int>{0, 1}));
  EXPECT_EQ((*s)->worker_count(), 3);

  auto failed = Scheduler::Start(OneGroup(1), config, [](int) {
    return Status(StatusCode::kModelLoadFailed, "cannot load model x.onnx");
  });
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), StatusCode::kModelLoadFailed);
}

}  // namespace
}  // namespace ocr::sched

namespace ocr::sched {
namespace {

// Records the order in which jobs and parts ran.
struct Order {
  std::mutex mu;
  std::vector<std::string> ran;

  void Add(std::string what) {
    std::lock_guard lock(mu);
    ran.push_back(std::move(what));
  }
};

Job Recording(Order& order, std::string name, Priority priority, std::latch* done = nullptr) {
  Job job;
  job.priority = priority;
  job.run = [&order, name = std::move(name), done](WorkerContext&) {
    order.Add(name);
    if (done)
      done->count_down();
  };
  return job;
}

TEST(SchedulerPriorityTest, InteractiveJobsRunBeforeWaitingBackgroundJobs) {
  auto s = StartScheduler(OneGroup(1));
  Blocker blocker;
  ASSERT_TRUE(s->Submit(blocker.MakeJob()).ok());
  blocker.started.wait();
  Order order;
  std::latch done(4);
  for (const char* name : {"page 1", "page 2", "page 3"})
    ASSERT_TRUE(s->Submit(Recording(order, name, Priority::kBackground, &done)).ok());
  ASSERT_TRUE(s->Submit(Recording(order, "request", Priority::kInteractive, &done)).ok());
  blocker.release.set_value();
  done.wait();
  EXPECT_EQ(order.ran, (std::vector<std::string>{"request", "page 1", "page 2", "page 3"}));
}

// The queue capacity bounds waiting interactive requests; background work is bounded by whoever
// submits it (a job's page window), so it is always admitted.
TEST(SchedulerPriorityTest, CapacityBoundsOnlyInteractiveJobs) {
  auto s = StartScheduler(OneGroup(1), /*capacity=*/1);
  Blocker blocker;
  ASSERT_TRUE(s->Submit(blocker.MakeJob()).ok());
  blocker.started.wait();
  Order order;
  std::latch done(6);
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(s->Submit(Recording(order, "page", Priority::kBackground, &done)).ok());
  }
  EXPECT_FALSE(s->full());
  EXPECT_TRUE(s->Submit(Recording(order, "request", Priority::kInteractive, &done)).ok());
  EXPECT_TRUE(s->full());
  const Status refused = s->Submit(Recording(order, "refused", Priority::kInteractive));
  EXPECT_EQ(refused.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(s->queued(), 6u);
  blocker.release.set_value();
  done.wait();
  EXPECT_EQ(order.ran.front(), "request");
}

// A background job in a ParallelFor (a page's recognition batches) lets a request that arrives
// meanwhile run between two of its parts, on its own thread: the request waits for one part, not
// for the page.
TEST(SchedulerPriorityTest, BackgroundPartsYieldToAWaitingRequest) {
  auto s = StartScheduler(OneGroup(1));
  Order order;
  std::promise<void> submit_now;
  std::promise<void> submitted;
  std::latch done(1);
  Job page;
  page.priority = Priority::kBackground;
  page.run = [&](WorkerContext& context) {
    context.runner.ParallelFor(3, [&](size_t part) {
      order.Add("part " + std::to_string(part));
      if (part == 0) {
        submit_now.set_value();
        submitted.get_future().wait();
      }
    });
    done.count_down();
  };
  ASSERT_TRUE(s->Submit(std::move(page)).ok());
  submit_now.get_future().wait();
  std::latch request_done(1);
  Job request = Recording(order, "request", Priority::kInteractive, &request_done);
  // The request's own parts are interactive again (its ParallelFor inherits its priority).
  ASSERT_TRUE(s->Submit(std::move(request)).ok());
  submitted.set_value();
  done.wait();
  request_done.wait();
  EXPECT_EQ(order.ran, (std::vector<std::string>{"part 0", "request", "part 1", "part 2"}));
}

// A worker in the middle of a background ParallelFor helps a running request's parts between two
// of its own: here the request's part 0 can only finish once part 1 ran on another thread, and the
// only other worker is busy with a page.
TEST(SchedulerPriorityTest, BackgroundPartsHelpARunningRequest) {
  auto s = StartScheduler(OneGroup(2));
  std::promise<void> page_started;
  std::promise<void> request_running;
  std::shared_future<void> request_is_running = request_running.get_future().share();
  std::latch page_done(1);
  std::atomic<bool> request_finished{false};
  Job page;
  page.priority = Priority::kBackground;
  page.run = [&](WorkerContext& context) {
    context.runner.ParallelFor(1, [&](size_t) {
      page_started.set_value();
      request_is_running.wait();
    });
    // Still inside the page: more parts of it, between which the request's part is taken.
    context.runner.ParallelFor(10000, [&](size_t) {
      if (!request_finished)
        std::this_thread::sleep_for(1ms);
    });
    page_done.count_down();
  };
  ASSERT_TRUE(s->Submit(std::move(page)).ok());
  page_started.get_future().wait();
  std::promise<bool> helped;
  Job request;
  request.run = [&](WorkerContext& context) {
    std::atomic<bool> second_ran{false};
    std::array<std::thread::id, 2> ran_on;
    request_running.set_value();
    context.runner.ParallelFor(2, [&](size_t part) {
      ran_on[part] = std::this_thread::get_id();
      if (part == 1) {
        second_ran = true;
        return;
      }
      const auto deadline = std::chrono::steady_clock::now() + 10s;
      while (!second_ran && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(1ms);
    });
    request_finished = true;
    // Either part may be the one the page's worker takes; what matters is that two threads ran
    // them.
    helped.set_value(second_ran && ran_on[0] != ran_on[1]);
  };
  ASSERT_TRUE(s->Submit(std::move(request)).ok());
  EXPECT_TRUE(helped.get_future().get()) << "the page's worker did not help the request";
  page_done.wait();
}

}  // namespace
}  // namespace ocr::sched
