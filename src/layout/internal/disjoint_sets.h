// Disjoint sets of indices 0..n-1 (union-find, with path halving), for table finding: rulings
// that cross or touch (internal/ruled_tables.cpp) and grid positions that are one cell
// (internal/table_cells.cpp).
// Thread-safety: a value type; one instance is not safe to use from several threads at once.
#pragma once

#include <cstddef>
#include <numeric>
#include <vector>

namespace ocr::layout::internal {

class DisjointSets {
 public:
  explicit DisjointSets(std::size_t n) : parent_(n) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }

  std::size_t Find(std::size_t i) {
    while (parent_[i] != i) {
      parent_[i] = parent_[parent_[i]];
      i = parent_[i];
    }
    return i;
  }

  void Unite(std::size_t a, std::size_t b) { parent_[Find(a)] = Find(b); }

 private:
  std::vector<std::size_t> parent_;
};

}  // namespace ocr::layout::internal
