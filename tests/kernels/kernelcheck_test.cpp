// The numerics gate (kernels/kernelcheck.hpp) on the CPU: its naive baselines and the gate over the CPU kernels.
#include "kernels/kernelcheck.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "tests/kernels/random_tensor.hpp"

using namespace tt::kernels;
using tt::kernels::test::normal_tensor;

namespace {
double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double e = 0;
  for (std::size_t i = 0; i < a.size(); ++i) e = std::max(e, std::abs(a[i] - b[i]));
  return e;
}
}  // namespace

TEST_CASE("the unrounded naive attention is the fp64 reference", "[unit][kernels]") {
  for (const bool causal : {false, true}) {
    const AttentionShape s{.batch = 1, .heads = 1, .seq = 37, .head_dim = 16, .causal = causal};
    const auto q = normal_tensor(s.elements(), 1), k = normal_tensor(s.elements(), 2),
               v = normal_tensor(s.elements(), 3), d_o = normal_tensor(s.elements(), 4);
    std::vector<double> o(s.elements()), lse(s.rows()), dq(s.elements()), dk(s.elements()), dv(s.elements());
    attention_forward_reference(s, q.data(), k.data(), v.data(), o.data(), lse.data());
    attention_backward_reference(s, q.data(), k.data(), v.data(), o.data(), d_o.data(), dq.data(), dk.data(),
                                 dv.data());
    const SliceResult r =
        naive_attention_slice(s.seq, s.head_dim, causal, q.data(), k.data(), v.data(), d_o.data(), {}, nullptr);
    CHECK(max_abs_diff(r.o, o) < 1e-12);
    CHECK(max_abs_diff(r.lse, lse) < 1e-12);
    CHECK(max_abs_diff(r.dq, dq) < 1e-12);
    CHECK(max_abs_diff(r.dk, dk) < 1e-12);
    CHECK(max_abs_diff(r.dv, dv) < 1e-12);
    // Rows picked out give those rows' values.
    const SliceResult picked = naive_attention_slice(s.seq, s.head_dim, causal, q.data(), k.data(), v.data(),
                                                     d_o.data(), {0, 20, 36}, nullptr);
    REQUIRE(picked.o.size() == 3u * s.head_dim);
    CHECK(picked.dk.empty());
    for (int c = 0; c < s.head_dim; ++c) {
      CHECK(picked.o[2 * s.head_dim + c] == Approx(o[36 * s.head_dim + c]).margin(1e-12));
      CHECK(picked.dq[1 * s.head_dim + c] == Approx(dq[20 * s.head_dim + c]).margin(1e-12));
    }
  }
}

TEST_CASE("the naive baseline's error is that of its precision", "[unit][kernels]") {
  // bf16 keeps 8 significant bits (unit roundoff 2^-8), fp16 11 (2^-11): the naive attention's error against the
  // reference must sit around those, not at 0 (no rounding applied) nor far above (a wrong formula).
  const int n = 64, d = 32;
  const auto q = normal_tensor(n * d, 5), k = normal_tensor(n * d, 6), v = normal_tensor(n * d, 7),
             d_o = normal_tensor(n * d, 8);
  const SliceResult ref = naive_attention_slice(n, d, false, q.data(), k.data(), v.data(), d_o.data(), {}, nullptr);
  for (const auto& [p, unit] : {std::pair{Precision::bf16, 0x1.0p-8}, std::pair{Precision::fp16, 0x1.0p-11}}) {
    const SliceResult naive = naive_attention_slice(n, d, false, q.data(), k.data(), v.data(), d_o.data(), {}, &p);
    const double o_error = max_abs_diff(naive.o, ref.o);
    INFO(precision_name(p) << " o error " << o_error);
    CHECK(o_error > 0.1 * unit);
    CHECK(o_error < 16 * unit);
    CHECK(round_to_precision(1.0 + unit, p) == 1.0);  // a tie: to even
    CHECK(round_to_precision(1.0 + 2 * unit, p) == 1.0 + 2 * unit);
  }
}

TEST_CASE("the CPU kernels pass the gate, in full and on sampled rows", "[unit][kernels]") {
  std::uint64_t seed = 99;
  for (const int seq : {100, 1100}) {
    const CheckCase c{{.batch = 1, .heads = 2, .seq = seq, .head_dim = 64, .causal = true}, Precision::bf16};
    const auto rows = run_check(CheckDevice::cpu, c, ++seed);
    REQUIRE(rows.size() == 2);
    for (const CheckRow& r : rows) {
      INFO("seq " << seq << (r.backward ? " bwd " : " fwd ") << r.worst << " " << r.error << " <= " << r.bound << " "
                  << r.failure);
      CHECK(r.ok());
      CHECK(r.scope == (seq > 1024 ? "rows" : "full"));
      CHECK(r.error < r.bound);
      CHECK(r.bound > 0);
    }
    CHECK(rows[1].backward);
    if (seq > 1024) CHECK(rows[1].worst == "dq");  // sampled rows gate dQ only
  }
}

TEST_CASE("the check grid covers both precisions, head dims and masks", "[unit][kernels]") {
  const auto cpu = check_grid(CheckDevice::cpu, {173, 256}, {64, 128});
  CHECK(cpu.size() == 16);
  const auto cuda = check_grid(CheckDevice::cuda, {512, 1024, 8192}, {128});
  // bf16 at every seq and mask, fp16 once more at 1024; 16k tokens per batch, 2048 / head_dim heads.
  REQUIRE(cuda.size() == 8);
  for (const auto& c : cuda) {
    CHECK(c.shape.batch * c.shape.seq == 16384);
    CHECK(c.shape.heads == 16);
  }
}
