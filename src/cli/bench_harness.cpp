#include "cli/bench_harness.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>
#include <utility>

#include "common/clock.h"
#include "common/mutex.h"
#include "sched/process_memory.h"

namespace ocr::cli {
namespace {

constexpr double kBytesPerMib = 1024.0 * 1024.0;

}  // namespace

Level Measure(int concurrency, const LevelLimits& limits, size_t inputs, const RequestFn& request) {
  const auto count_limit = static_cast<size_t>(std::max(0, limits.requests));
  const size_t rss_every = std::max<size_t>(1, count_limit / 20);
  const double limit_ms = limits.duration_s * 1000.0;

  // What the clients add to, under its lock.
  struct Shared {
    Mutex mu;  // guards level
    Level level GUARDED_BY(mu);
  } shared;

  {
    MutexLock lock(&shared.mu);
    shared.level.concurrency = concurrency;
  }
  std::atomic<size_t> next{0};
  const double cpu_before = CpuSeconds();
  Stopwatch wall;
  {
    std::vector<std::jthread> clients;
    clients.reserve(static_cast<size_t>(concurrency));
    for (int c = 0; c < concurrency; ++c) {
      clients.emplace_back([&] {
        for (;;) {
          const size_t n = next.fetch_add(1);
          if (count_limit > 0 ? n >= count_limit : wall.ElapsedMs() > limit_ms)
            return;
          Result<Sample> sample = request(n % inputs);
          MutexLock lock(&shared.mu);
          Level& level = shared.level;
          ++level.requests;
          if (count_limit > 0 && level.requests % rss_every == 0)
            level.rss_mib.push_back(ResidentMib());
          if (sample.ok())
            level.samples.push_back(*sample);
          else
            ++level.failures;
        }
      });
    }
  }
  MutexLock lock(&shared.mu);  // the clients are joined; taken for the analysis
  Level level = std::move(shared.level);
  level.wall_s = wall.ElapsedMs() / 1000.0;
  level.cpu_s = CpuSeconds() - cpu_before;
  return level;
}

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double ResidentMib() {
  return static_cast<double>(sched::ReadProcessMemory().resident_bytes) / kBytesPerMib;
}

double PeakResidentMib() {
  return static_cast<double>(sched::ReadProcessMemory().peak_resident_bytes) / kBytesPerMib;
}

double Percentile(std::vector<double> values, double p) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  const double rank = p / 100.0 * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (rank - static_cast<double>(lo));
}

}  // namespace ocr::cli
