// PairIndex: a dense map from a pair (a, b), both below n, to a slot its owner fills with a 1-based position in its own
// pool (0: nothing yet). Rows are allocated for the a's that are used. A lookup is a few memory reads, not a hash probe:
// fleet-scale runs look up millions of pairs (sim/platform.cpp routes and mailboxes, core/plan/comm_planner.cpp route
// fractions).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tt {

class PairIndex {
 public:
  explicit PairIndex(std::size_t n = 0) : rows_(n) {}

  // The pair's slot (throws std::out_of_range unless a, b < n).
  std::uint32_t& slot(std::size_t a, std::size_t b) {
    if (a >= rows_.size() || b >= rows_.size())
      throw std::out_of_range("PairIndex: (" + std::to_string(a) + ", " + std::to_string(b) + ") with " +
                              std::to_string(rows_.size()) + " items");
    auto& row = rows_[a];
    if (!row) row = std::make_unique<std::uint32_t[]>(rows_.size());  // zeroed
    return row[b];
  }

  // Every slot back to 0 (rows stay allocated).
  void clear() {
    for (auto& row : rows_)
      if (row) std::fill_n(row.get(), rows_.size(), 0u);
  }

 private:
  std::vector<std::unique_ptr<std::uint32_t[]>> rows_;
};

}  // namespace tt
