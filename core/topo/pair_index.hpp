// PairIndex: a map from a pair (a, b), both below n, to a slot its owner fills with a 1-based position in its own pool
// (0: nothing yet). Fleet-scale runs look up millions of pairs (sim/platform.cpp routes, core/plan/comm_planner.cpp
// route fractions), a GPU with a few dozen partners (ring, tree, pipeline and rail neighbours) among thousands. Each
// row (one a) keeps its pairs in a small open-addressing table of (b, slot) entries, linear probing from a Fibonacci
// hash of b, grown by doubling at half full: a lookup reads the row's header (16 bytes a row, 260 KiB at 16,640 GPUs)
// and, mostly, one cache line of its table. Until 2026-12-07 a row kept pages of 64 consecutive b's each and a table
// of page pointers past six pages: three dependent cache misses a lookup, and pages mostly empty (the platform's index
// of 161 k routes at 4,096 GPUs took 23.6 MiB, now 5.3; bench_fleet's 16,384-GPU month peaked at 1,011 MiB, now 820).
// A slot's reference holds until the next slot() call on the same index (a row's table moves as it grows). A slot is a
// std::uint32_t, or what the owner keeps beside the position (BasicPairIndex<Slot>: a trivially copyable type whose
// value-initialized value means nothing yet): the platform keeps each route's last check beside it, in the same line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tt {

template <class Slot = std::uint32_t>
class BasicPairIndex {
 public:
  explicit BasicPairIndex(std::size_t n = 0) : n_(n), rows_(n) {}

  // The pair's slot (throws std::out_of_range unless a, b < n); 0 the first time the pair is asked for.
  Slot& slot(std::size_t a, std::size_t b) {
    if (a >= n_ || b >= n_)
      throw std::out_of_range("PairIndex: (" + std::to_string(a) + ", " + std::to_string(b) + ") with " +
                              std::to_string(n_) + " items");
    Row& row = rows_[a];
    const auto key = static_cast<std::uint32_t>(b) + 1;  // 0 marks an empty entry
    if (row.table) {
      for (std::uint32_t i = home(key, row.mask);; i = (i + 1) & row.mask) {
        Entry& e = row.table[i];
        if (e.key == key) return e.value;
        if (e.key == 0) break;
      }
    }
    if (!row.table || 2 * (std::uint64_t{row.count} + 1) > std::uint64_t{row.mask} + 1) grow(row);
    ++row.count;
    return place(row, key).value;
  }

  // Where the pair's slot is looked for first (nullptr where a or b is out of range or a's row is empty): a caller
  // about to look up many pairs passes each to __builtin_prefetch before the lookups, so that their cache misses
  // overlap. (A prefetch made in here would be lost: GCC 12 takes a void function whose only effect is a prefetch for
  // one without effect, and deletes the calls.)
  const void* home_entry(std::size_t a, std::size_t b) const {
    if (a >= n_ || b >= n_) return nullptr;
    const Row& row = rows_[a];
    return row.table ? &row.table[home(static_cast<std::uint32_t>(b) + 1, row.mask)] : nullptr;
  }

  // Every slot back to 0, rows' tables freed.
  void release() {
    for (Row& row : rows_) row = Row{};
    bytes_ = 0;
  }
  // What the rows' tables take, in bytes.
  std::size_t bytes() const { return bytes_; }

 private:
  struct Entry {
    std::uint32_t key;  // b + 1; 0: empty
    Slot value;
  };
  struct Row {
    std::unique_ptr<Entry[]> table;
    std::uint32_t mask = 0;   // entries - 1 (a power of two less one)
    std::uint32_t count = 0;  // entries in use
  };
  static constexpr std::uint32_t kFirstEntries = 8;  // of std::uint32_t slots: 64 bytes, one cache line

  // Fibonacci hashing: the key times 2^64 / the golden ratio, its bits from the 32nd up.
  static std::uint32_t home(std::uint32_t key, std::uint32_t mask) {
    return static_cast<std::uint32_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
  }
  // An empty entry for `key`, which the row does not hold, with room for it.
  static Entry& place(Row& row, std::uint32_t key) {
    std::uint32_t i = home(key, row.mask);
    while (row.table[i].key != 0) i = (i + 1) & row.mask;
    row.table[i].key = key;
    row.table[i].value = Slot{};
    return row.table[i];
  }
  void grow(Row& row) {
    const std::uint32_t entries = row.table ? 2 * (row.mask + 1) : kFirstEntries;
    Row bigger;
    bigger.table = std::make_unique<Entry[]>(entries);  // value-initialized: all empty
    bigger.mask = entries - 1;
    bigger.count = row.count;
    if (row.table)
      for (std::uint32_t i = 0; i <= row.mask; ++i)
        if (row.table[i].key != 0) place(bigger, row.table[i].key).value = row.table[i].value;
    bytes_ += entries * sizeof(Entry) - (row.table ? (row.mask + 1) * sizeof(Entry) : 0);
    row = std::move(bigger);
  }

  std::size_t n_;
  std::vector<Row> rows_;
  std::size_t bytes_ = 0;
};

using PairIndex = BasicPairIndex<>;

}  // namespace tt
