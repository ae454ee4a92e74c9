#include "core/topo/pair_index.hpp"

#include <catch2/catch.hpp>
#include <stdexcept>

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

TEST_CASE("pair index: slots on different pages of one row are independent", "[unit]") {
  PairIndex index(1000);  // several pages per row
  for (std::size_t b = 0; b < 1000; b += 7) index.slot(3, b) = static_cast<std::uint32_t>(b + 1);
  for (std::size_t b = 0; b < 1000; ++b) CHECK(index.slot(3, b) == (b % 7 == 0 ? b + 1 : 0));
  CHECK(index.slot(999, 999) == 0);
  index.slot(999, 999) = 5;
  index.release();
  CHECK(index.slot(3, 994) == 0);
  CHECK(index.slot(999, 999) == 0);
}

TEST_CASE("pair index: counts the bytes of its pages, and of a row's page table once it has one", "[unit]") {
  PairIndex index(1000);  // 16 pages a row: a row's page table is 16 pointers, a page 64 slots
  const std::size_t table = 16 * sizeof(void*), page = 64 * sizeof(std::uint32_t);
  CHECK(index.bytes() == 0);
  index.slot(3, 5) = 1;
  CHECK(index.bytes() == page);  // a row lists its first few pages: no table
  index.slot(3, 60) = 2;         // the same page
  CHECK(index.bytes() == page);
  index.slot(3, 64) = 3;  // the row's next page
  index.slot(7, 5) = 4;   // another row
  CHECK(index.bytes() == 3 * page);
  for (std::size_t p = 2; p < 6; ++p) index.slot(3, 64 * p) = static_cast<std::uint32_t>(p);
  CHECK(index.bytes() == 7 * page);  // six pages listed in row 3
  index.slot(3, 64 * 9 + 1) = 9;    // a seventh: the row takes a table, and keeps what its pages hold
  CHECK(index.bytes() == table + 8 * page);
  CHECK(index.slot(3, 5) == 1);
  CHECK(index.slot(3, 60) == 2);
  CHECK(index.slot(3, 64) == 3);
  for (std::size_t p = 2; p < 6; ++p) CHECK(index.slot(3, 64 * p) == p);
  CHECK(index.slot(3, 64 * 9 + 1) == 9);
  CHECK(index.slot(7, 5) == 4);
  index.release();
  CHECK(index.bytes() == 0);
  CHECK(index.slot(3, 64) == 0);
  CHECK(index.bytes() == page);
}
