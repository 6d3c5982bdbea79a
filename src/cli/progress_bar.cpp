#include "cli/progress_bar.h"

#include <algorithm>

#include <fmt/format.h>

namespace ocr::cli {

std::string ProgressBar::Render(const State& s) {
  constexpr std::size_t kWidth = 20;
  const std::size_t filled = s.pages == 0 ? 0 : std::min(s.page, s.pages) * kWidth / s.pages;
  std::string bar = "[" + std::string(filled, '#') + std::string(kWidth - filled, '.') + "] ";
  bar +=
      fmt::format("page {}/{}, file {}/{}, {:.1f} s", s.page, s.pages, s.file, s.files, s.seconds);
  if (s.seconds > 0 && s.total > 0)
    bar += fmt::format(", {:.1f} pages/s", static_cast<double>(s.total) / s.seconds);
  return bar;
}

void ProgressBar::StartFile(std::size_t index) {
  MutexLock lock(&mu_);
  earlier_done_ += file_done_;
  file_done_ = 0;
  file_total_ = 0;
  file_ = index;
}

void ProgressBar::Update(std::size_t done, std::size_t total) {
  if (!enabled_)
    return;
  MutexLock lock(&mu_);
  // Pages finish out of order when they run in parallel: never draw fewer than already shown,
  // and draw nothing new when the count has not moved.
  if (drawn_ && done <= file_done_ && total == file_total_)
    return;
  file_done_ = std::max(file_done_, done);
  file_total_ = total;
  State state;
  state.page = file_done_;
  state.pages = total;
  state.file = file_ + 1;
  state.files = files_;
  state.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  state.total = earlier_done_ + file_done_;
  // \r and erase-line redraw in place.
  std::fprintf(out_, "\r\033[K%s", Render(state).c_str());
  std::fflush(out_);
  drawn_ = true;
}

void ProgressBar::Clear() {
  MutexLock lock(&mu_);
  if (!drawn_)
    return;
  std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace ocr::cli
