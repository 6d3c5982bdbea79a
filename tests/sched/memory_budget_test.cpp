// The memory budget: reservations within the limit, refusals beyond it, release on destruction,
// and no overshoot under concurrent reservations.
#include "sched/memory_budget.h"

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace ocr::sched {
namespace {

TEST(MemoryBudgetTest, ReservesWithinTheLimitAndReleasesOnDestruction) {
  MemoryBudget budget(100);
  auto a = budget.TryReserve(60);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(budget.reserved(), 60);
  EXPECT_FALSE(budget.TryReserve(41).has_value());  // 101 > 100: nothing reserved
  EXPECT_EQ(budget.reserved(), 60);
  {
    auto b = budget.TryReserve(40);
    ASSERT_TRUE(b.has_value());
    EXPECT_EQ(budget.reserved(), 100);
  }
  EXPECT_EQ(budget.reserved(), 60);
  a.reset();
  EXPECT_EQ(budget.reserved(), 0);
  EXPECT_FALSE(budget.TryReserve(101).has_value());  // larger than the whole budget
}

TEST(MemoryBudgetTest, NoLimitAcceptsEverything) {
  MemoryBudget budget(0);
  auto big = budget.TryReserve(std::int64_t{1} << 50);
  EXPECT_TRUE(big.has_value());
}

TEST(MemoryBudgetTest, ConcurrentReservationsNeverPassTheLimit) {
  MemoryBudget budget(1000);
  std::atomic<std::int64_t> peak{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        if (auto lease = budget.TryReserve(150)) {
          std::int64_t seen = budget.reserved();
          std::int64_t prev = peak.load();
          while (seen > prev && !peak.compare_exchange_weak(prev, seen)) {
          }
        }
      }
    });
  }
  for (auto& t : threads)
    t.join();
  EXPECT_LE(peak.load(), 1000);
  EXPECT_EQ(budget.reserved(), 0);
}

}  // namespace
}  // namespace ocr::sched
