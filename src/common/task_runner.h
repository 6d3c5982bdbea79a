// TaskRunner: how a piece of work asks for help with its independent parts (the recognition
// batches of one image, the pages of one document) without knowing who runs them. The scheduler's
// worker groups implement it; InlineTaskRunner runs everything on the caller (the CLI, tests).
// Thread-safety: implementations are safe to call from any thread.
#pragma once

#include <cstddef>
#include <functional>

namespace ocr {

class TaskRunner {
 public:
  virtual ~TaskRunner() = default;

  // Runs fn(0) ... fn(n - 1) and returns when all have returned. The caller runs items itself;
  // idle threads of the same group may take some. Items must not throw.
  virtual void ParallelFor(size_t n, const std::function<void(size_t)>& fn) = 0;
};

// Runs every item on the calling thread, in order.
class InlineTaskRunner final : public TaskRunner {
 public:
  void ParallelFor(size_t n, const std::function<void(size_t)>& fn) override {
    for (size_t i = 0; i < n; ++i)
      fn(i);
  }
};

}  // namespace ocr
