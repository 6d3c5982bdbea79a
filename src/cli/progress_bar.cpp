#include "cli/progress_bar.h"

#include <fmt/format.h>

namespace ocr::cli {

std::string ProgressBar::Render(std::size_t done, std::size_t total, double seconds) {
  constexpr std::size_t kWidth = 20;
  const std::size_t filled = total == 0 ? 0 : done * kWidth / total;
  std::string bar = "[" + std::string(filled, '#') + std::string(kWidth - filled, '.') + "] ";
  bar += fmt::format("{}/{} pages", done, total);
  if (seconds > 0 && done > 0)
    bar += fmt::format(", {:.1f} pages/s", static_cast<double>(done) / seconds);
  return bar;
}

void ProgressBar::Update(std::size_t done, std::size_t total) {
  if (!enabled_ || total <= 1)
    return;
  MutexLock lock(&mu_);
  if (!drawn_)
    start_ = std::chrono::steady_clock::now();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // \r and erase-line redraw in place.
  std::fprintf(out_, "\r\033[K%s", Render(done, total, seconds).c_str());
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
