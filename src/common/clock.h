// Monotonic time helpers. Thread-safety: a Stopwatch belongs to one thread.
#pragma once

#include <chrono>

namespace ocr {

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()), lap_(start_) {}

  // Milliseconds since the last LapMs() (or construction), and starts a new lap.
  double LapMs() {
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - lap_).count();
    lap_ = now;
    return ms;
  }

  double ElapsedMs() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point lap_;
};

}  // namespace ocr
