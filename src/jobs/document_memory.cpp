#include "jobs/document_memory.h"

#include <limits>
#include <string>
#include <utility>

namespace ocr::jobs {
namespace {

bool Limited(const sched::MemoryBudget* budget) {
  return budget != nullptr && budget->limit() > 0;
}

std::string LimitText(const sched::MemoryBudget& budget) {
  return std::to_string(budget.limit() >> 20) + " MB";
}

}  // namespace

Result<std::optional<sched::MemoryBudget::Lease>> ReserveDocumentMemory(
    sched::MemoryBudget* budget, const document::PageReader& reader, int parallel_pages,
    std::int64_t extra_bytes) {
  if (!Limited(budget))
    return std::optional<sched::MemoryBudget::Lease>();
  OCR_ASSIGN_OR_RETURN(const std::int64_t need, reader.EstimateBytes(parallel_pages));
  std::int64_t bytes = 0;
  if (__builtin_add_overflow(need, extra_bytes, &bytes))
    bytes = std::numeric_limits<std::int64_t>::max();  // a hostile header's estimate saturates
  return ReserveBytes(budget, bytes);
}

Status FitsBudget(const sched::MemoryBudget* budget, std::int64_t bytes) {
  if (!Limited(budget) || bytes <= budget->limit())
    return Status::Ok();
  return {StatusCode::kImageTooLarge, "this document needs about " + std::to_string(bytes >> 20) +
                                          " MB to process, more than the whole memory budget of " +
                                          LimitText(*budget) + " (--memory-budget-mb)"};
}

Result<std::optional<sched::MemoryBudget::Lease>> ReserveBytes(sched::MemoryBudget* budget,
                                                               std::int64_t bytes) {
  if (!Limited(budget))
    return std::optional<sched::MemoryBudget::Lease>();
  OCR_RETURN_IF_ERROR(FitsBudget(budget, bytes));
  auto lease = budget->TryReserve(bytes);
  if (!lease) {
    return Status(StatusCode::kResourceExhausted,
                  "the memory budget (" + LimitText(*budget) +
                      ", --memory-budget-mb) is held by requests in flight; retry after a second");
  }
  return std::optional<sched::MemoryBudget::Lease>(std::move(lease));
}

}  // namespace ocr::jobs
