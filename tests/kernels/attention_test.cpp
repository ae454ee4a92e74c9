#include "kernels/attention.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "tests/kernels/random_tensor.hpp"

using namespace tt::kernels;
using tt::kernels::test::normal_tensor;
using tt::kernels::test::to_float;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Tolerance of the fp32 kernel against the fp64 reference, as max |cpu - ref| / max |ref| over a tensor. An output
// element sums ~seq products (forward: p v; backward: ds k, ds q, p dO, and the scores behind p over head_dim) whose
// fp32 rounding errors add up like a random walk: ~sqrt(terms) * eps, eps = 2^-24. Measured on these cases, AVX-512 or
// SSE2 build: at most 1.3 x sqrt(seq) * eps forward and 1.7 x backward (peaky softmax, q sigma 4, is the worst). A
// factor of 8 leaves ~5x room and still sits orders of magnitude below what a missed tile, a wrong mask or a stale
// running max produces.
constexpr double kFp32Eps = 0x1.0p-24;
constexpr double kErrorFactor = 8.0;
double tolerance(const AttentionShape& s) {
  return kErrorFactor * std::sqrt(static_cast<double>(std::max(s.seq, s.head_dim))) * kFp32Eps;
}

double relative_max_error(const std::vector<float>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  double scale = 0.0;
  double error = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    scale = std::max(scale, std::abs(want[i]));
    error = std::max(error, std::abs(static_cast<double>(got[i]) - want[i]));
  }
  return error / scale;
}

bool all_finite(const std::vector<float>& x) {
  return std::all_of(x.begin(), x.end(), [](float value) { return std::isfinite(value); });
}

struct Inputs {
  explicit Inputs(const AttentionShape& s, std::uint64_t seed, double q_sigma = 1.0)
      : q(normal_tensor(s.elements(), seed, q_sigma)),
        k(normal_tensor(s.elements(), seed + 1)),
        v(normal_tensor(s.elements(), seed + 2)),
        d_o(normal_tensor(s.elements(), seed + 3)) {}
  std::vector<double> q, k, v, d_o;
};

// Outputs start as NaN so that an element the kernel never writes shows up.
struct CpuResult {
  CpuResult(const AttentionShape& s, const Inputs& in, int threads)
      : o(s.elements(), kNaN),
        lse(s.rows(), kNaN),
        dq(s.elements(), kNaN),
        dk(s.elements(), kNaN),
        dv(s.elements(), kNaN) {
    const auto q = to_float(in.q), k = to_float(in.k), v = to_float(in.v), d_o = to_float(in.d_o);
    attention_forward_cpu(s, q.data(), k.data(), v.data(), o.data(), lse.data(), threads);
    attention_backward_cpu(s, q.data(), k.data(), v.data(), o.data(), lse.data(), d_o.data(), dq.data(), dk.data(),
                           dv.data(), threads);
  }
  std::vector<float> o, lse, dq, dk, dv;
};

struct ReferenceResult {
  ReferenceResult(const AttentionShape& s, const Inputs& in)
      : o(s.elements()), lse(s.rows()), dq(s.elements()), dk(s.elements()), dv(s.elements()) {
    attention_forward_reference(s, in.q.data(), in.k.data(), in.v.data(), o.data(), lse.data());
    attention_backward_reference(s, in.q.data(), in.k.data(), in.v.data(), o.data(), in.d_o.data(), dq.data(),
                                 dk.data(), dv.data());
  }
  std::vector<double> o, lse, dq, dk, dv;
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("reference attention of two tokens matches the hand computation", "[unit][kernels]") {
  // head_dim 1 (scale 1): scores q_i k_j with q = (1, 2), k = (0, ln 3) give rows (0, ln 3) and (0, ln 9), so
  // p = (1/4, 3/4) and (1/10, 9/10); v = (10, 20).
  const double ln3 = std::log(3.0);
  const std::vector<double> q{1, 2}, k{0, ln3}, v{10, 20}, d_o{1, 0};
  std::vector<double> o(2), lse(2), dq(2), dk(2), dv(2);

  AttentionShape s{.batch = 1, .heads = 1, .seq = 2, .head_dim = 1, .causal = false};
  attention_forward_reference(s, q.data(), k.data(), v.data(), o.data(), lse.data());
  CHECK(o[0] == Approx(17.5));
  CHECK(o[1] == Approx(19.0));
  CHECK(lse[0] == Approx(std::log(4.0)));
  CHECK(lse[1] == Approx(std::log(10.0)));

  // dO = (1, 0): dV = p_0 = (1/4, 3/4); dP_0 = (10, 20), D_0 = 17.5, dS_0 = p_0 (dP_0 - D_0) = (-1.875, 1.875);
  // dQ_0 = dS_0 . k = 1.875 ln 3, dK = dS_0 q_0 = (-1.875, 1.875); row 1 has no upstream gradient.
  attention_backward_reference(s, q.data(), k.data(), v.data(), o.data(), d_o.data(), dq.data(), dk.data(), dv.data());
  CHECK(dv[0] == Approx(0.25));
  CHECK(dv[1] == Approx(0.75));
  CHECK(dq[0] == Approx(1.875 * ln3));
  CHECK(dq[1] == Approx(0.0).margin(1e-15));
  CHECK(dk[0] == Approx(-1.875));
  CHECK(dk[1] == Approx(1.875));

  // Causal: token 0 sees only itself.
  s.causal = true;
  attention_forward_reference(s, q.data(), k.data(), v.data(), o.data(), lse.data());
  CHECK(o[0] == Approx(10.0));
  CHECK(lse[0] == Approx(0.0).margin(1e-15));
  CHECK(o[1] == Approx(19.0));
  attention_backward_reference(s, q.data(), k.data(), v.data(), o.data(), d_o.data(), dq.data(), dk.data(), dv.data());
  CHECK(dv[0] == Approx(1.0));
  CHECK(dv[1] == Approx(0.0).margin(1e-15));
  CHECK(dq[0] == Approx(0.0).margin(1e-15));
  CHECK(dk[0] == Approx(0.0).margin(1e-15));
}

TEST_CASE("reference backward is the gradient of the reference forward", "[unit][kernels]") {
  // loss = sum(dO * O); central differences in fp64 have error ~h^2, far below the 1e-6 asked.
  for (const bool causal : {false, true}) {
    const AttentionShape s{.batch = 2, .heads = 1, .seq = 5, .head_dim = 3, .causal = causal};
    Inputs in(s, 7);
    std::vector<double> o(s.elements()), lse(s.rows()), dq(s.elements()), dk(s.elements()), dv(s.elements());
    attention_forward_reference(s, in.q.data(), in.k.data(), in.v.data(), o.data(), lse.data());
    attention_backward_reference(s, in.q.data(), in.k.data(), in.v.data(), o.data(), in.d_o.data(), dq.data(),
                                 dk.data(), dv.data());
    const auto loss = [&] {
      attention_forward_reference(s, in.q.data(), in.k.data(), in.v.data(), o.data(), lse.data());
      double sum = 0.0;
      for (std::size_t i = 0; i < o.size(); ++i) sum += in.d_o[i] * o[i];
      return sum;
    };
    const double h = 1e-5;
    for (auto [x, grad] : {std::pair{&in.q, &dq}, std::pair{&in.k, &dk}, std::pair{&in.v, &dv}}) {
      for (std::size_t i = 0; i < x->size(); ++i) {
        const double saved = (*x)[i];
        (*x)[i] = saved + h;
        const double up = loss();
        (*x)[i] = saved - h;
        const double down = loss();
        (*x)[i] = saved;
        INFO("causal " << causal << " element " << i);
        CHECK((*grad)[i] == Approx((up - down) / (2 * h)).margin(1e-6));
      }
    }
  }
}

TEST_CASE("tiled fp32 attention matches the fp64 reference", "[unit][kernels]") {
  struct Case {
    AttentionShape shape;
    double q_sigma;  // larger: peakier softmax, and a running max that moves between key tiles
  };
  const Case cases[] = {
      {{.batch = 2, .heads = 3, .seq = 130, .head_dim = 64, .causal = false}, 1.0},
      {{.batch = 2, .heads = 3, .seq = 130, .head_dim = 64, .causal = true}, 1.0},
      {{.batch = 1, .heads = 2, .seq = 200, .head_dim = 128, .causal = true}, 1.0},
      {{.batch = 1, .heads = 2, .seq = 257, .head_dim = 128, .causal = false}, 1.0},
      {{.batch = 2, .heads = 2, .seq = 47, .head_dim = 64, .causal = true}, 1.0},
      {{.batch = 1, .heads = 3, .seq = 150, .head_dim = 40, .causal = true}, 1.0},
      {{.batch = 1, .heads = 2, .seq = 192, .head_dim = 64, .causal = false}, 4.0},
      {{.batch = 1, .heads = 2, .seq = 392, .head_dim = 64, .causal = true}, 4.0},
  };
  std::uint64_t seed = 100;
  for (const Case& c : cases) {
    const AttentionShape& s = c.shape;
    const Inputs in(s, seed += 10, c.q_sigma);
    const ReferenceResult want(s, in);
    const CpuResult got(s, in, 4);
    INFO("batch " << s.batch << " heads " << s.heads << " seq " << s.seq << " head_dim " << s.head_dim << " causal "
                  << s.causal << " q sigma " << c.q_sigma);
    for (const auto* x : {&got.o, &got.lse, &got.dq, &got.dk, &got.dv}) REQUIRE(all_finite(*x));

    const double tol = tolerance(s);
    const double o_err = relative_max_error(got.o, want.o);
    const double lse_err = relative_max_error(got.lse, want.lse);
    const double dq_err = relative_max_error(got.dq, want.dq);
    const double dk_err = relative_max_error(got.dk, want.dk);
    const double dv_err = relative_max_error(got.dv, want.dv);
    INFO("errors o " << o_err << " lse " << lse_err << " dq " << dq_err << " dk " << dk_err << " dv " << dv_err
                     << "; tolerance " << tol);
    CHECK(o_err < tol);
    CHECK(lse_err < tol);
    CHECK(dq_err < tol);
    CHECK(dk_err < tol);
    CHECK(dv_err < tol);
  }
}

TEST_CASE("tiled fp32 attention gives the same bits on 1 and 4 threads", "[unit][kernels]") {
  // Two (batch, head) slices: one thread runs the fused backward, four the split one; twelve slices: fused on both.
  for (const int slices : {2, 12}) {
    for (const bool causal : {false, true}) {
      const AttentionShape s{.batch = 1, .heads = slices, .seq = 300, .head_dim = 64, .causal = causal};
      const Inputs in(s, 500 + slices);
      const CpuResult one(s, in, 1);
      const CpuResult four(s, in, 4);
      INFO("slices " << slices << " causal " << causal);
      CHECK(same_bits(one.o, four.o));
      CHECK(same_bits(one.lse, four.lse));
      CHECK(same_bits(one.dq, four.dq));
      CHECK(same_bits(one.dk, four.dk));
      CHECK(same_bits(one.dv, four.dv));
    }
  }
}
