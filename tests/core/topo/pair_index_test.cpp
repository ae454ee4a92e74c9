#include "core/topo/pair_index.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <utility>

using namespace tt;

TEST_CASE("pair index: slots start at 0, keep what is written, release back to 0, and check their bounds", "[unit]") {
  PairIndex index(5);
  CHECK(index.slot(1, 4) == 0);
  index.slot(1, 4) = 7;
  index.slot(4, 1) = 3;
  CHECK(index.slot(1, 4) == 7);
  CHECK(index.slot(4, 1) == 3);  // (a, b) and (b, a) are different pairs
  CHECK(index.slot(1, 3) == 0);
  index.release();
  CHECK(index.slot(1, 4) == 0);
  CHECK(index.slot(4, 1) == 0);
  CHECK_THROWS_AS(index.slot(5, 0), std::out_of_range);
  CHECK_THROWS_AS(index.slot(0, 5), std::out_of_range);
}

TEST_CASE("pair index: a row's many pairs are kept apart as its table grows", "[unit]") {
  PairIndex index(1000);
  for (std::size_t b = 0; b < 1000; b += 7) index.slot(3, b) = static_cast<std::uint32_t>(b + 1);
  for (std::size_t b = 0; b < 1000; ++b) CHECK(index.slot(3, b) == (b % 7 == 0 ? b + 1 : 0));
  CHECK(index.slot(999, 999) == 0);
  index.slot(999, 999) = 5;
  index.release();
  CHECK(index.slot(3, 994) == 0);
  CHECK(index.slot(999, 999) == 0);
}

TEST_CASE("pair index: counts the bytes of its rows' tables, which double at half full", "[unit]") {
  PairIndex index(1000);
  const std::size_t entry = 2 * sizeof(std::uint32_t), first = 8 * entry;  // a row's first table: 8 entries
  CHECK(index.bytes() == 0);
  index.slot(3, 5) = 1;
  CHECK(index.bytes() == first);
  index.slot(3, 60) = 2;  // the same row
  CHECK(index.bytes() == first);
  index.slot(7, 5) = 4;  // another row
  CHECK(index.bytes() == 2 * first);
  index.slot(3, 64) = 3;
  index.slot(3, 128) = 4;  // four of eight: half full
  CHECK(index.bytes() == 2 * first);
  index.slot(3, 192) = 5;  // the fifth: row 3's table doubles, and keeps what it held
  CHECK(index.bytes() == first + 16 * entry);
  CHECK(index.slot(3, 5) == 1);
  CHECK(index.slot(3, 60) == 2);
  CHECK(index.slot(3, 64) == 3);
  CHECK(index.slot(3, 128) == 4);
  CHECK(index.slot(3, 192) == 5);
  CHECK(index.slot(7, 5) == 4);
  CHECK(index.bytes() == first + 16 * entry);  // lookups of pairs it holds add nothing
  index.release();
  CHECK(index.bytes() == 0);
  CHECK(index.slot(3, 64) == 0);
  CHECK(index.bytes() == first);
}

TEST_CASE("pair index: agrees with a std::map over random pairs, rows dense and sparse, across a release",
          "[property]") {
  const std::size_t n = 3000;
  PairIndex index(n);
  std::map<std::pair<std::size_t, std::size_t>, std::uint32_t> reference;
  std::mt19937_64 rng(23);
  for (int round = 0; round < 2; ++round) {
    for (int k = 0; k < 20000; ++k) {
      // Half the pairs from rows 0-3 (thousands of partners each: many doublings), half anywhere.
      const std::size_t a = k % 2 ? rng() % 4 : rng() % n, b = rng() % n;
      auto it = reference.find({a, b});
      const std::uint32_t expected = it == reference.end() ? 0 : it->second;
      REQUIRE(index.slot(a, b) == expected);
      if (rng() % 3 != 0) {
        const auto value = static_cast<std::uint32_t>(rng() % 1000000 + 1);
        index.slot(a, b) = value;
        reference[{a, b}] = value;
      }
    }
    for (const auto& [pair, value] : reference) REQUIRE(index.slot(pair.first, pair.second) == value);
    index.release();
    reference.clear();
    CHECK(index.bytes() == 0);
  }
}

TEST_CASE("pair index: home_entry names the entry a lookup reads first, or none", "[unit]") {
  PairIndex index(100);
  CHECK(index.home_entry(3, 5) == nullptr);    // row 3 has no table yet
  CHECK(index.home_entry(100, 5) == nullptr);  // out of range: no throw
  CHECK(index.home_entry(3, 100) == nullptr);
  index.slot(3, 5) = 7;
  const auto* entry = static_cast<const char*>(index.home_entry(3, 5));
  REQUIRE(entry != nullptr);
  // The row's only pair sits in its home entry (no collision to probe past): its slot lies within that entry.
  const auto* slot = reinterpret_cast<const char*>(&index.slot(3, 5));
  CHECK(slot >= entry);
  CHECK(slot < entry + 2 * sizeof(std::uint32_t));
  CHECK(index.home_entry(4, 5) == nullptr);  // another row, still empty
}
