#include "support/render_text.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <system_error>
#include <vector>

#include <gtest/gtest.h>

namespace ocr::testing {
namespace {

// The PNGs made here, removed when the test process ends (callers use a path until then).
class MadeFiles {
 public:
  MadeFiles() = default;
  MadeFiles(const MadeFiles&) = delete;
  MadeFiles& operator=(const MadeFiles&) = delete;

  ~MadeFiles() {
    std::error_code ec;
    for (const std::filesystem::path& path : paths_)
      std::filesystem::remove(path, ec);
  }

  void Add(const std::filesystem::path& path) {
    const std::lock_guard<std::mutex> lock(mu_);
    paths_.push_back(path);
  }

 private:
  std::mutex mu_;
  std::vector<std::filesystem::path> paths_;
};

MadeFiles& Made() {
  static MadeFiles made;
  return made;
}

}  // namespace

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
  const bool made =
      pid >= 0 && waitpid(pid, &status, 0) >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  std::error_code ec;
  std::filesystem::remove(text_path, ec);
  if (!made)
    return {};
  Made().Add(png_path);
  return png_path;
}

}  // namespace ocr::testing
