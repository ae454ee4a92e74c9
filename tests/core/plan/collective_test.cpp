#include "core/plan/collective.hpp"

#include <catch2/catch.hpp>

using namespace tt;

TEST_CASE("busbw: algbw = size / time, busbw factors as nccl-tests defines them", "[unit][plan]") {
  const Bytes size(1e9);
  const Seconds t(0.01);
  const int n = 8;
  CHECK(bandwidth(Collective::AllReduce, n, size, t).algbw.value == Approx(1e11));
  CHECK(bandwidth(Collective::AllReduce, n, size, t).busbw.value == Approx(1e11 * 2 * 7 / 8));
  for (Collective c : {Collective::ReduceScatter, Collective::AllGather, Collective::AllToAll})
    CHECK(bandwidth(c, n, size, t).busbw.value == Approx(1e11 * 7 / 8));
  for (Collective c : {Collective::Broadcast, Collective::Reduce, Collective::SendRecv})
    CHECK(bandwidth(c, n, size, t).busbw.value == Approx(1e11));
  CHECK(bandwidth(Collective::AllReduce, n, size, Seconds(0)).busbw.value == 0);
}

TEST_CASE("every collective has a table entry, and its names round-trip", "[unit][plan]") {
  REQUIRE(all_collectives().size() == static_cast<std::size_t>(kCollectives));
  for (int i = 0; i < kCollectives; ++i) {
    const auto c = static_cast<Collective>(i);
    const CollectiveInfo& info = collective_info(c);
    CHECK(info.id == c);
    CHECK(parse_collective(to_string(c)) == c);
    CHECK_FALSE(info.algorithms.empty());
    CHECK((info.ring_share != nullptr) == (info.ring_steps != nullptr));
  }
  CHECK(parse_algorithm("NVLS") == Algorithm::Nvls);
  CHECK(parse_protocol("ll128") == Protocol::LL128);
  CHECK_FALSE(parse_collective("allreduce"));
  // Ring edges carry what nccl-tests' bus bandwidth counts: busbw is then the bandwidth of one ring edge.
  for (int n : {2, 8, 64})
    for (Collective c : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather})
      CHECK(collective_info(c).ring_share(n) == Approx(collective_info(c).bus_factor(n)));
}
