// OCR_CHECK(condition): the REQUIRES of a function made executable. A broken contract is a bug in
// the caller, never a client's doing, so it aborts with the file, line and condition instead of
// computing on bad memory (client input is refused earlier with a Status). Cheap enough for hot
// kernels: one comparison per call, not per pixel. Thread-safety: safe from any thread.
#pragma once

namespace ocr::internal {

[[noreturn]] void CheckFailed(const char* condition, const char* file, int line);

}  // namespace ocr::internal

#define OCR_CHECK(condition)          \
  ((condition) ? static_cast<void>(0) \
               : ::ocr::internal::CheckFailed(#condition, __FILE__, __LINE__))
