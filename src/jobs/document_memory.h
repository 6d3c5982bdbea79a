// The memory a document's reading holds, reserved in the server's budget (sched/memory_budget.h)
// before a page is read: by a request read at once, a job of this process, and each page this
// replica claims from Redis, so that all of them stay under one --memory-budget-mb.
// Thread-safety: pure functions over a thread-safe budget.
#pragma once

#include <cstdint>
#include <optional>

#include "common/status.h"
#include "document/document.h"
#include "sched/memory_budget.h"

namespace ocr::jobs {

// Reserves `reader`'s estimate with `parallel_pages` pages in flight (PageReader::EstimateBytes)
// plus `extra_bytes` in `budget`; nullopt when there is no budget (null, or no limit).
// Errors: kImageTooLarge when the document alone needs more than the whole budget;
// kResourceExhausted (503, retry) when what is in flight holds it; those of EstimateBytes.
Result<std::optional<sched::MemoryBudget::Lease>> ReserveDocumentMemory(
    sched::MemoryBudget* budget, const document::PageReader& reader, int parallel_pages,
    std::int64_t extra_bytes = 0);

// Memory a job's results hold per page until they are freed: lines, boxes and words of a dense
// page as C++ values, with margin (a 100-line page with word boxes holds about 80 KB).
inline constexpr std::int64_t kResultBytesPerPage = 128 << 10;

// Ok when `bytes` fit in the whole of `budget` (or there is none); else kImageTooLarge.
Status FitsBudget(const sched::MemoryBudget* budget, std::int64_t bytes);

// Reserves `bytes` (an upload and results kept until they expire); nullopt when there is
// no budget. Errors: kImageTooLarge when they are more than the whole budget;
// kResourceExhausted when what is in flight holds it.
Result<std::optional<sched::MemoryBudget::Lease>> ReserveBytes(sched::MemoryBudget* budget,
                                                               std::int64_t bytes);

}  // namespace ocr::jobs
