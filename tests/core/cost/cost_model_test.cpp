// The cost model's arithmetic against figures worked out by hand (docs/cost.md).
#include "core/cost/cost_model.hpp"

#include <catch2/catch.hpp>

using namespace tt;
using namespace tt::cost;

namespace {

constexpr double kHour = 3600;

Prices two_site_prices() {
  Prices p;
  p.enabled = true;
  p.gpu = {{"A", PriceKind::Reserved, 2.0}, {"B", PriceKind::OnDemand, 6.0}};
  p.storage_per_gb_month = 0.10;
  p.retention.keep_last = 2;
  p.storage_per_gb = 0.01;
  p.inter_site_per_gb = 0.05;
  return p;
}

// Two 8-GPU nodes, one per site, billed for 10 hours. j1 holds a0 0-5h, then (after a move) b0 6h-8h, writing four
// 100 GB checkpoints (1h, 2h, 3h on A; 7h on B); j2 holds 4 GPUs of a0 5h-10h.
CostInput two_site_input() {
  CostInput in;
  in.end = Seconds(10 * kHour);
  in.sites = {"A", "B"};
  in.capacity = {{"a0", "A", PriceKind::Reserved, 2.0, 8, Seconds(0), Seconds(10 * kHour)},
                 {"b0", "B", PriceKind::OnDemand, 6.0, 8, Seconds(0), Seconds(10 * kHour)}};
  JobUsage j1{.name = "j1",
              .queue = "q1",
              .held = {{"a0", 8, Seconds(0), Seconds(5 * kHour)}, {"b0", 8, Seconds(6 * kHour), Seconds(8 * kHour)}},
              .productive_gpu_hours = 40,
              .checkpoint_bytes = Bytes(100e9),
              .checkpoints = {{Seconds(1 * kHour), "A"},
                              {Seconds(2 * kHour), "A"},
                              {Seconds(3 * kHour), "A"},
                              {Seconds(7 * kHour), "B"}},
              .keep_last = 0,
              .ended = Seconds(8 * kHour),
              .inter_site_bytes = Bytes(100e9)};
  JobUsage j2{.name = "j2",
              .queue = "q2",
              .held = {{"a0", 4, Seconds(5 * kHour), Seconds(10 * kHour)}},
              .productive_gpu_hours = 10,
              .checkpoint_bytes = Bytes(0),
              .checkpoints = {},
              .keep_last = 0,
              .ended = std::nullopt,
              .inter_site_bytes = Bytes(0)};
  in.jobs = {j1, j2};
  return in;
}

}  // namespace

TEST_CASE("cost: GPU time, idle capacity, storage under keep_last, traffic", "[unit][cost]") {
  const CostReport r = compute_costs(two_site_prices(), two_site_input());
  REQUIRE(r.jobs.size() == 2);
  // Billed: 80 GPU-h at 2 on A (160), 80 at 6 on B (480).
  CHECK(r.gpu == Approx(640));
  // j1: 40 GPU-h on A (80) + 16 on B (96).
  CHECK(r.jobs[0].gpu_hours == Approx(56));
  CHECK(r.jobs[0].gpu == Approx(176));
  // keep_last 2: kept 1h->3h, 2h->7h, 3h->end (10h), 7h->end: 2 + 5 + 7 + 3 = 17 h of 100 GB; a month is 730 h.
  CHECK(r.jobs[0].storage_gb_months == Approx(100.0 * 17 / 730));
  CHECK(r.jobs[0].storage == Approx(0.10 * 100.0 * 17 / 730));
  // Four 100 GB writes at 0.01 per GB, one 100 GB move at 0.05 per GB.
  CHECK(r.jobs[0].traffic == Approx(4 + 5));
  CHECK(r.jobs[0].traffic_gb == Approx(500));
  CHECK(r.jobs[1].gpu == Approx(40));  // 20 GPU-h on A
  CHECK(r.jobs[1].total == Approx(40));
  // Idle: A used 60 of 80 GPU-h (40 idle cost), B 16 of 80 (64 GPU-h, 384).
  REQUIRE(r.sites.size() == 2);
  CHECK(r.sites[0].idle_gpu_hours == Approx(20));
  CHECK(r.sites[0].idle == Approx(40));
  CHECK(r.sites[1].idle_gpu_hours == Approx(64));
  CHECK(r.sites[1].idle == Approx(384));
  CHECK(r.idle == Approx(424));
  CHECK(r.sites[0].storage == Approx(0.10 * 100.0 * 14 / 730));
  CHECK(r.sites[1].storage == Approx(0.10 * 100.0 * 3 / 730));
  CHECK(r.inter_site_traffic == Approx(5));
  const double total = 640 + 0.10 * 100.0 * 17 / 730 + 9;
  CHECK(r.total == Approx(total));
  // Every unit of cost is a job's or idle capacity's.
  CHECK(r.jobs[0].total + r.jobs[1].total + r.idle == Approx(r.total));
  CHECK(r.queues.at("q1") == Approx(r.jobs[0].total));
  CHECK(r.queues.at("q2") == Approx(40));
  CHECK(r.productive_gpu_hours == Approx(50));
  REQUIRE(r.per_useful_gpu_hour);
  CHECK(*r.per_useful_gpu_hour == Approx(total / 50));
}

TEST_CASE("cost: lifecycle expiry keeps a running job's newest checkpoint", "[unit][cost]") {
  const std::vector<CheckpointWrite> w = {{Seconds(1 * kHour), "A"}, {Seconds(2 * kHour), "A"},
                                          {Seconds(3 * kHour), "A"}};
  const Bytes gb(1e9);
  const std::optional<Seconds> expire = Seconds(4 * kHour);
  const Seconds end(10 * kHour);
  // Ended at 5h: each expires 4h after its write; the newest at max(3h + 4h, 5h) = 7h.
  for (std::size_t k = 0; k < 3; ++k) CHECK(kept_gb_months(w, k, gb, 0, expire, Seconds(5 * kHour), end) == Approx(4.0 / 730));
  // Ended at 8h: the newest is kept until the job no longer needs it (8h), then expires.
  CHECK(kept_gb_months(w, 2, gb, 0, expire, Seconds(8 * kHour), end) == Approx(5.0 / 730));
  // Unfinished: the newest stays to the end of the run; older ones still expire.
  CHECK(kept_gb_months(w, 2, gb, 0, expire, std::nullopt, end) == Approx(7.0 / 730));
  CHECK(kept_gb_months(w, 0, gb, 0, expire, std::nullopt, end) == Approx(4.0 / 730));
  // keep_last 1 deletes the first at the second's write (1h), before it would expire.
  CHECK(kept_gb_months(w, 0, gb, 1, expire, std::nullopt, end) == Approx(1.0 / 730));
  // No retention: kept to the end.
  CHECK(kept_gb_months(w, 0, gb, 0, std::nullopt, std::nullopt, end) == Approx(9.0 / 730));
}

TEST_CASE("cost: the stricter of the job's and the section's keep_last applies, nothing productive, no ratio",
          "[unit][cost]") {
  Prices p = two_site_prices();
  CostInput in = two_site_input();
  in.jobs[0].keep_last = 1;  // stricter than the section's 2
  in.jobs[0].productive_gpu_hours = 0;
  in.jobs[1].productive_gpu_hours = 0;
  const CostReport r = compute_costs(p, in);
  // keep 1: 1h->2h, 2h->3h, 3h->7h, 7h->10h: 1 + 1 + 4 + 3 = 9 h.
  CHECK(r.jobs[0].storage_gb_months == Approx(100.0 * 9 / 730));
  CHECK_FALSE(r.per_useful_gpu_hour);
}
