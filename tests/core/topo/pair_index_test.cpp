#include "core/topo/pair_index.hpp"

#include <catch2/catch.hpp>
#include <stdexcept>

using namespace tt;

TEST_CASE("pair index: slots start at 0, keep what is written, clear back to 0, and check their bounds", "[unit]") {
  PairIndex index(5);
  CHECK(index.slot(1, 4) == 0);
  index.slot(1, 4) = 7;
  index.slot(4, 1) = 3;
  CHECK(index.slot(1, 4) == 7);
  CHECK(index.slot(4, 1) == 3);  // (a, b) and (b, a) are different pairs
  CHECK(index.slot(1, 3) == 0);
  index.clear();
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
  index.clear();
  CHECK(index.slot(3, 994) == 0);
  CHECK(index.slot(999, 999) == 0);
}
