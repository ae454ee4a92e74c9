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
