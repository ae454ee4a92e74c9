// PairIndex: a dense map from a pair (a, b), both below n, to a slot its owner fills with a 1-based position in its own
// pool (0: nothing yet). A lookup is a few memory reads, not a hash probe: fleet-scale runs look up millions of pairs
// (sim/platform.cpp routes and mailboxes, core/plan/comm_planner.cpp route fractions). Storage is paged: a page holds
// kPage slots of consecutive b's of one row (one a), allocated when one of them is first used. A row lists its first
// kFew pages beside their numbers and gets a table of page pointers (n / kPage of them) only past that: a run that
// looks up a few partners per GPU (the usual case: ring, tree and pipeline neighbours) keeps a few pages per row and
// no table (at 16,640 GPUs a table would be 2 KiB a row, 33 MiB for all, zeroed).
#pragma once

#include <array>
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
    Row& row = rows_[a];
    const auto number = static_cast<std::uint32_t>(b / kPage);
    Page* page = nullptr;
    if (row.table) {
      page = &row.table[number];
    } else {
      for (std::uint32_t i = 0; i < row.count; ++i)
        if (row.numbers[i] == number) {
          page = &row.few[i];
          break;
        }
      if (page == nullptr && row.count < kFew) {
        row.numbers[row.count] = number;
        page = &row.few[row.count++];
      } else if (page == nullptr) {  // past kFew pages: a table of them all
        row.table = std::make_unique<Page[]>(pages());  // null pages
        bytes_ += pages() * sizeof(Page);
        for (std::uint32_t i = 0; i < kFew; ++i) row.table[row.numbers[i]] = std::move(row.few[i]);
        row.count = 0;
        page = &row.table[number];
      }
    }
    if (!*page) {
      *page = std::make_unique<std::uint32_t[]>(kPage);  // zeroed
      bytes_ += kPage * sizeof(std::uint32_t);
    }
    return (*page)[b % kPage];
  }

  // Every slot back to 0, rows and pages freed.
  void release() {
    for (Row& row : rows_) row = Row{};
    bytes_ = 0;
  }
  // What its pages and page tables take, in bytes.
  std::size_t bytes() const { return bytes_; }

 private:
  static constexpr std::size_t kPage = 64;  // slots per page: 256 bytes
  static constexpr std::uint32_t kFew = 6;  // pages a row lists before it takes a table
  using Page = std::unique_ptr<std::uint32_t[]>;
  struct Row {
    std::uint32_t count = 0;  // of `few` in use (none once it has a table)
    std::array<std::uint32_t, kFew> numbers{};
    std::array<Page, kFew> few;
    std::unique_ptr<Page[]> table;
  };
  std::size_t pages() const { return (n_ + kPage - 1) / kPage; }
  std::size_t n_;
  std::vector<Row> rows_;
  std::size_t bytes_ = 0;
};

}  // namespace tt
