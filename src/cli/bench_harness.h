// The measuring side of `onnxocr bench`: a closed-loop load generator over a request callback,
// the numbers it keeps per concurrency level (latencies, stage times, wall and CPU seconds,
// resident memory over time), and the small readers and statistics the report needs. It knows
// nothing of how a request is served; a Sample only carries the pipeline's stage times.
// Thread-safety: Measure calls `request` from `concurrency` threads at once, so the callback must
// be thread-safe; the other functions are pure or read process-wide counters, from any thread.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "common/status.h"
#include "pipeline/types.h"

namespace ocr::cli {

// One answered request.
struct Sample {
  double latency_ms = 0;
  double decode_ms = 0;
  pipeline::StageTimes times;
  double layout_ms = 0;  // document layout of the result (tables, paragraphs): pages pay it
  size_t lines = 0;
};

// One concurrency level: every request sent, and the samples of those that succeeded.
struct Level {
  int concurrency = 0;
  size_t requests = 0;
  size_t failures = 0;
  double wall_s = 0;
  double cpu_s = 0;  // this process, user + system
  std::vector<Sample> samples;
  std::vector<double> rss_mib;  // sampled every 5% of LevelLimits::requests (memory growth)

  double per_second() const { return wall_s > 0 ? static_cast<double>(requests) / wall_s : 0; }
};

// How long a level runs: `requests` requests in all when above 0, else `duration_s` seconds.
struct LevelLimits {
  double duration_s = 10;
  int requests = 0;
};

// Serves request `input` (in [0, inputs)); an error counts as a failure.
using RequestFn = std::function<Result<Sample>(size_t input)>;

// Closed loop: `concurrency` clients each send the next input (round robin over `inputs`) as soon
// as their previous one is answered, until `limits` are used up. Returns when all have finished.
// REQUIRES: concurrency >= 1, inputs >= 1.
Level Measure(int concurrency, const LevelLimits& limits, size_t inputs, const RequestFn& request);

// CPU seconds (user + system) this process has used so far.
double CpuSeconds();

// This process's resident set now (VmRSS) and its peak (VmHWM), MiB; 0 when unknown.
double ResidentMib();
double PeakResidentMib();

// The `p`th percentile (0-100) of `values`, interpolated between ranks; 0 when empty.
double Percentile(std::vector<double> values, double p);

}  // namespace ocr::cli
