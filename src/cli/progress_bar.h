// ProgressBar: `onnxocr run`'s progress, drawn on stderr in place with \r and erase-line
// ("[#####...............] page 12/48, file 1/2, 6.2 s, 1.9 pages/s") and erased when the run
// ends, so the output that follows starts on a clean line. Drawn only when enabled: by default
// when stderr is a terminal (--progress auto), so pipes and logs get exactly what they got
// before; --progress on|off (ONNXOCR_PROGRESS) forces it either way.
// Thread-safety: every method may be called from several threads at once.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

#include "common/mutex.h"

namespace ocr::cli {

class ProgressBar {
 public:
  // What one drawing shows.
  struct State {
    std::size_t page = 0;   // pages of the current file read
    std::size_t pages = 0;  // pages of the current file to read
    std::size_t file = 0;   // the current file, from 1
    std::size_t files = 0;  // files in the run
    double seconds = 0;     // since the run started
    std::size_t total = 0;  // pages read in the whole run, for the rate
  };

  // Draws on `out` only when `enabled`, for a run over `files` files. The clock starts now.
  // REQUIRES: `out` outlives the bar.
  ProgressBar(std::FILE* out, bool enabled, std::size_t files)
      : out_(out), enabled_(enabled), files_(files) {}

  ~ProgressBar() { Clear(); }

  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // The next file begins (`index` from 0); its pages are not known yet.
  void StartFile(std::size_t index) EXCLUDES(mu_);
  // `done` of the current file's `total` pages are read (0 once it is opened); no redraw when
  // neither has moved since the last drawing.
  void Update(std::size_t done, std::size_t total) EXCLUDES(mu_);
  // Erases the bar (before a message, or the output); the next Update draws it again.
  void Clear() EXCLUDES(mu_);

  // The bar's text, e.g. "[#####...............] page 12/48, file 1/2, 6.2 s, 1.9 pages/s"
  // (no rate before the first page is read).
  static std::string Render(const State& state);

 private:
  std::FILE* const out_;
  const bool enabled_;
  const std::size_t files_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  Mutex mu_;  // guards the members below
  bool drawn_ GUARDED_BY(mu_) = false;
  std::size_t file_ GUARDED_BY(mu_) = 0;          // from 0
  std::size_t file_done_ GUARDED_BY(mu_) = 0;     // pages of the current file read
  std::size_t file_total_ GUARDED_BY(mu_) = 0;    // pages of the current file to read
  std::size_t earlier_done_ GUARDED_BY(mu_) = 0;  // pages of the files before it read
};

}  // namespace ocr::cli
