// PairIndex: a dense map from a pair (a, b), both below n, to a slot its owner fills with a 1-based position in its own
// pool (0: nothing yet). A lookup is a few memory reads, not a hash probe: fleet-scale runs look up millions of pairs
// (sim/platform.cpp routes and mailboxes, core/plan/comm_planner.cpp route fractions). Storage is paged: a row (one a)
// is a table of page pointers, allocated when the row is first used, and a page holds kPage slots of consecutive b's,
// allocated when one of them is first used. A run that looks up a few partners per GPU (the usual case: ring, tree and
// pipeline neighbours) keeps a few pages per row instead of n slots: at 16,640 GPUs a full row is 65 KiB, its page
// table 2 KiB.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tt {

class PairIndex {
 public:
  explicit PairIndex(std::size_t n = 0) : n_(n), rows_(n) {}

  // The pair's slot (throws std::out_of_range unless a, b < n).
  std::uint32_t& slot(std::size_t a, std::size_t b) {
    if (a >= n_ || b >= n_)
      throw std::out_of_range("PairIndex: (" + std::to_string(a) + ", " + std::to_string(b) + ") with " +
                              std::to_string(n_) + " items");
    auto& row = rows_[a];
    if (!row) {
      row = std::make_unique<Page[]>(pages());  // null pages
      bytes_ += pages() * sizeof(Page);
    }
    Page& page = row[b / kPage];
    if (!page) {
      page = std::make_unique<std::uint32_t[]>(kPage);  // zeroed
      bytes_ += kPage * sizeof(std::uint32_t);
    }
    return page[b % kPage];
  }

  // Every slot back to 0, rows and pages freed.
  void release() {
    for (auto& row : rows_) row.reset();
    bytes_ = 0;
  }
  // What its rows and pages take (a row's page table and each page allocated), in bytes.
  std::size_t bytes() const { return bytes_; }

 private:
  static constexpr std::size_t kPage = 64;  // slots per page: 256 bytes
  using Page = std::unique_ptr<std::uint32_t[]>;
  std::size_t pages() const { return (n_ + kPage - 1) / kPage; }
  std::size_t n_;
  std::vector<std::unique_ptr<Page[]>> rows_;
  std::size_t bytes_ = 0;
};

}  // namespace tt
