// A dense float32 tensor owned by value. Thread-safety: plain value.
#pragma once

#include <cstdint>
#include <vector>

namespace ocr::engine {

struct Tensor {
  std::vector<std::int64_t> shape;
  std::vector<float> data;  // row-major, size == product of shape

  static std::int64_t NumElements(const std::vector<std::int64_t>& shape) {
    std::int64_t n = 1;
    for (std::int64_t d : shape)
      n *= d;
    return n;
  }
};

}  // namespace ocr::engine
