// MemoryBudget: bytes that work in flight may hold at once. Work reserves its estimated peak
// before it allocates (decoded pages, inference buffers) and returns it when done, so concurrent
// large images and PDFs are refused with 503 instead of pushing the process into the OOM killer.
// Invariant: reserved() <= limit() whenever limit() > 0.
// Thread-safety: TryReserve() and the accessors are safe from any thread; a Lease belongs to one.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <utility>

namespace ocr::sched {

class MemoryBudget {
 public:
  // Returns its bytes to the budget when destroyed. Move-only.
  class Lease {
   public:
    Lease(Lease&& other) noexcept
        : budget_(std::exchange(other.budget_, nullptr)), bytes_(other.bytes_) {}

    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();

   private:
    friend class MemoryBudget;

    Lease(MemoryBudget* budget, std::int64_t bytes) : budget_(budget), bytes_(bytes) {}

    MemoryBudget* budget_;
    std::int64_t bytes_;
  };

  // limit_bytes <= 0: no limit (every reservation succeeds).
  explicit MemoryBudget(std::int64_t limit_bytes) : limit_(limit_bytes) {}

  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  // Reserves `bytes`, or returns nullopt (nothing reserved) when the reservations in flight plus
  // `bytes` would pass the limit. REQUIRES: every Lease is destroyed before the budget.
  std::optional<Lease> TryReserve(std::int64_t bytes);

  std::int64_t limit() const { return limit_; }

  std::int64_t reserved() const { return reserved_.load(); }

 private:
  const std::int64_t limit_;
  std::atomic<std::int64_t> reserved_{0};
};

}  // namespace ocr::sched
