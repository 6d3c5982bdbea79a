#include "common/check.h"

#include <cstdio>
#include <cstdlib>

namespace ocr::internal {

void CheckFailed(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: OCR_CHECK failed: %s\n", file, line, condition);
  std::abort();
}

}  // namespace ocr::internal
