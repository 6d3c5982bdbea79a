// ProgressBar: `onnxocr run`'s progress on a multi-page document, drawn on stderr in place
// ("[#####.....] 12/48 pages, 1.9 pages/s") when stderr is a terminal, and nothing otherwise, so
// pipes and logs get exactly what they got before.
// Thread-safety: Update() may be called from several threads at once.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

#include "common/mutex.h"

namespace ocr::cli {

class ProgressBar {
 public:
  // Draws on `out` only when `enabled` (the caller's isatty check).
  ProgressBar(std::FILE* out, bool enabled) : out_(out), enabled_(enabled) {}

  ~ProgressBar() { Clear(); }

  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // `done` of `total` pages read; a one-page document draws nothing.
  void Update(std::size_t done, std::size_t total) EXCLUDES(mu_);
  // Erases the bar (before the next file's, or the output).
  void Clear() EXCLUDES(mu_);

  // The bar's text for `done` of `total` pages after `seconds`, e.g.
  // "[##########..........] 24/48 pages, 1.9 pages/s".
  static std::string Render(std::size_t done, std::size_t total, double seconds);

 private:
  std::FILE* out_;
  const bool enabled_;
  Mutex mu_;  // guards the members below
  bool drawn_ GUARDED_BY(mu_) = false;
  std::chrono::steady_clock::time_point start_ GUARDED_BY(mu_) = std::chrono::steady_clock::now();
};

}  // namespace ocr::cli
