#include "support/render_text.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>

#include <gtest/gtest.h>

namespace ocr::testing {

std::filesystem::path RenderTextPng(const std::string& text, int font_points, int margin_px) {
  static std::atomic<int> counter{0};
  const std::filesystem::path dir = ::testing::TempDir();
  const std::string stem = "render_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  const auto text_path = dir / (stem + ".txt");
  const auto png_path = dir / (stem + ".png");
  std::ofstream(text_path, std::ios::binary) << text;
  const std::string font = "DejaVu Sans " + std::to_string(font_points);
  const std::string margin = std::to_string(margin_px);
  const pid_t pid = fork();
  if (pid == 0) {
    execlp("pango-view", "pango-view", "-q", "--background=white", "--font", font.c_str(),
           "--margin", margin.c_str(), "-o", png_path.c_str(), text_path.c_str(),
           static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return {};
  }
  return png_path;
}

}  // namespace ocr::testing
