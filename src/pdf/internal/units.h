// PDF user-space units, shared by the reader (poppler) and the writer (QPDF). Constants only.
#pragma once

namespace ocr::pdf::internal {

// PDF user space has 72 units (points) to the inch.
inline constexpr double kPointsPerInch = 72.0;

}  // namespace ocr::pdf::internal
