// Server metrics in the Prometheus text exposition format (version 0.0.4): request counts by
// route and status, latency histograms by route, per-stage pipeline time, pages and lines
// processed, and the queue depth and in-flight gauges sampled at scrape time.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "common/mutex.h"
#include "pipeline/types.h"

namespace ocr::http {

// A cumulative histogram with fixed upper bounds (seconds).
class Histogram {
 public:
  static constexpr std::array<double, 14> kBoundsSeconds = {
      0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120};

  void Observe(double seconds);

  // Appends `name_bucket{labels,le="..."}`, `name_sum{labels}` and `name_count{labels}` lines.
  // `labels` is empty or `key="value",...` without braces.
  void Write(std::string& out, std::string_view name, std::string_view labels) const;

 private:
  std::array<std::atomic<std::uint64_t>, kBoundsSeconds.size() + 1> buckets_{};  // last: +Inf
  std::atomic<std::uint64_t> count_{0};
  std::atomic<double> sum_{0};
};

class Metrics {
 public:
  struct Gauges {
    std::size_t queue_depth = 0;
    std::size_t in_flight = 0;
    std::size_t connections = 0;
  };

  // `gauges` is called at each scrape. REQUIRES: it is thread-safe and outlives this object.
  explicit Metrics(std::function<Gauges()> gauges) : gauges_(std::move(gauges)) {}

  // One finished HTTP request. `route` is the matched route pattern (never the raw target, so
  // label cardinality stays bounded), e.g. "/ocr" or "other".
  void RecordRequest(std::string_view route, std::string_view method, unsigned status,
                     double seconds) EXCLUDES(mu_);

  // One image or page through the pipeline.
  void RecordPipeline(const pipeline::StageTimes& times, std::size_t lines);

  void RecordPages(std::size_t pages) { pages_total_ += pages; }

  // The whole exposition, ending with a newline.
  std::string Render() const EXCLUDES(mu_);

 private:
  std::function<Gauges()> gauges_;
  mutable Mutex mu_;  // guards requests_ and latency_; the rest is atomic
  std::map<std::string, std::uint64_t> requests_ GUARDED_BY(mu_);  // key: route\tmethod\tstatus
  std::map<std::string, Histogram> latency_ GUARDED_BY(mu_);       // key: route
  std::array<Histogram, 6> stage_;                                 // see kStageNames in metrics.cpp
  std::atomic<std::uint64_t> pages_total_{0};
  std::atomic<std::uint64_t> lines_total_{0};
  std::atomic<std::uint64_t> images_total_{0};
};

// Escapes a label value per the exposition format (backslash, double quote, newline).
std::string EscapeLabelValue(std::string_view value);

}  // namespace ocr::http
