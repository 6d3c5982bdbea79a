// The one bound on coordinates that layout analysis works with, for line_geometry.cpp (a line's
// summary), internal/columns.cpp (the column search) and layout.cpp (a block's extent).
// Thread-safety: pure functions.
#pragma once

#include <algorithm>
#include <cmath>

namespace ocr::layout::internal {

// Pixels. Coordinates are clamped to this range (and NaN becomes 0): far beyond any image we
// accept, yet small enough that sums and differences of coordinates stay finite in float.
inline constexpr float kMaxCoordinatePx = 1e7F;

inline float SaneCoordinate(float v) {
  if (std::isnan(v)) {
    return 0;
  }
  return std::clamp(v, -kMaxCoordinatePx, kMaxCoordinatePx);
}

}  // namespace ocr::layout::internal
