#include "sched/memory_budget.h"

namespace ocr::sched {

MemoryBudget::Lease::~Lease() {
  if (budget_ != nullptr)
    budget_->reserved_.fetch_sub(bytes_);
}

std::optional<MemoryBudget::Lease> MemoryBudget::TryReserve(std::int64_t bytes) {
  bytes = bytes < 0 ? 0 : bytes;
  std::int64_t current = reserved_.load();
  do {
    if (limit_ > 0 && current + bytes > limit_)
      return std::nullopt;
  } while (!reserved_.compare_exchange_weak(current, current + bytes));
  return Lease(this, bytes);
}

}  // namespace ocr::sched
