#include "kernels/kernelcheck.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <future>
#include <limits>
#include <optional>
#include <stdexcept>
#include <thread>

namespace tt::kernels {

namespace {

// splitmix64 -> uniform -> Box-Muller: portable normal draws (std:: distributions differ between libraries).
class Normal {
 public:
  explicit Normal(std::uint64_t seed) : state_(seed) {}
  double next() {
    const double radius = std::sqrt(-2.0 * std::log(uniform()));
    return radius * std::cos(6.283185307179586 * uniform());
  }

 private:
  std::uint64_t bits() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return (static_cast<double>(bits() >> 11) + 0.5) * 0x1.0p-53; }
  std::uint64_t state_;
};

std::uint16_t to_bits(double x, Precision p) {
  if (p == Precision::bf16) return Eigen::numext::bit_cast<std::uint16_t>(Eigen::bfloat16(static_cast<float>(x)));
  return Eigen::numext::bit_cast<std::uint16_t>(Eigen::half(static_cast<float>(x)));
}

double from_bits(std::uint16_t b, Precision p) {
  if (p == Precision::bf16) return static_cast<float>(Eigen::numext::bit_cast<Eigen::bfloat16>(b));
  return static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(b));
}

// A tensor of normal draws already rounded to the input precision, so every implementation sees the same values.
// Drawn in chunks of 2^20 values, each from its own stream, on all cores: the same values whatever the core count.
std::vector<double> draw(std::int64_t count, std::uint64_t seed, Precision p) {
  constexpr std::int64_t kChunk = std::int64_t{1} << 20;
  std::vector<double> x(static_cast<std::size_t>(count));
  const std::int64_t chunks = (count + kChunk - 1) / kChunk;
  std::atomic<std::int64_t> next{0};
  const auto work = [&] {
    for (std::int64_t c; (c = next.fetch_add(1)) < chunks;) {
      Normal rng(seed ^ (0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(c + 1)));
      for (std::int64_t i = c * kChunk; i < std::min(count, (c + 1) * kChunk); ++i)
        x[static_cast<std::size_t>(i)] = round_to_precision(rng.next(), p);
    }
  };
  const auto threads = std::min<std::int64_t>(chunks, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::jthread> pool;
  for (std::int64_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  return x;
}

struct Inputs {
  Inputs(const AttentionShape& s, std::uint64_t seed, Precision p)
      : q(draw(s.elements(), seed, p)),
        k(draw(s.elements(), seed ^ 0x1111, p)),
        v(draw(s.elements(), seed ^ 0x2222, p)),
        d_o(draw(s.elements(), seed ^ 0x3333, p)) {}
  std::vector<double> q, k, v, d_o;
};

// One kernel's outputs, widened to double. NaN marks an element never written (outputs start poisoned).
struct Outputs {
  std::vector<double> o, lse, dq, dk, dv;
  double forward_ms = 0, backward_ms = 0;
  bool has_backward = false;
};

template <typename T>
std::vector<double> widen(const std::vector<T>& x) {
  return std::vector<double>(x.begin(), x.end());
}

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  return x[x.size() / 2];
}

Outputs run_cpu(const CheckCase& c, const Inputs& in) {
  const AttentionShape& s = c.shape;
  const std::vector<float> q(in.q.begin(), in.q.end()), k(in.k.begin(), in.k.end()), v(in.v.begin(), in.v.end()),
      d_o(in.d_o.begin(), in.d_o.end());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> o(q.size(), nan), lse(s.rows(), nan), dq(q.size(), nan), dk(q.size(), nan), dv(q.size(), nan);
  // One timed call: the CPU kernel is deterministic and its time steady; repeats are for the GPU's clocks.
  const auto t0 = std::chrono::steady_clock::now();
  attention_forward_cpu(s, q.data(), k.data(), v.data(), o.data(), lse.data());
  const auto t1 = std::chrono::steady_clock::now();
  attention_backward_cpu(s, q.data(), k.data(), v.data(), o.data(), lse.data(), d_o.data(), dq.data(), dk.data(),
                         dv.data());
  const auto t2 = std::chrono::steady_clock::now();
  const double fwd = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const double bwd = std::chrono::duration<double, std::milli>(t2 - t1).count();
  return Outputs{widen(o), widen(lse), widen(dq), widen(dk), widen(dv), fwd, bwd, true};
}

Outputs run_cuda(const CheckCase& c, const Inputs& in, int repeats) {
  const AttentionShape& s = c.shape;
  const Precision p = c.precision;
  const auto bits = [p](const std::vector<double>& x) {
    std::vector<std::uint16_t> b(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) b[i] = to_bits(x[i], p);
    return b;
  };
  const auto unbits = [p](const std::vector<std::uint16_t>& b) {
    std::vector<double> x(b.size());
    for (std::size_t i = 0; i < b.size(); ++i) x[i] = from_bits(b[i], p);
    return x;
  };
  CudaAttention gpu(s, p);
  gpu.upload(bits(in.q), bits(in.k), bits(in.v), bits(in.d_o));
  gpu.poison_outputs();
  Outputs out;
  out.has_backward = cuda_backward_supports(s);
  gpu.forward();
  out.o = unbits(gpu.o());
  out.lse = widen(gpu.lse());
  if (out.has_backward) {
    gpu.backward();
    out.dq = unbits(gpu.dq());
    out.dk = unbits(gpu.dk());
    out.dv = unbits(gpu.dv());
  }
  // Timing after the checked run (which warmed up module loading): the median of `repeats` calls.
  std::vector<double> fwd, bwd;
  for (int r = 0; r < std::max(1, repeats); ++r) {
    fwd.push_back(gpu.forward());
    if (out.has_backward) bwd.push_back(gpu.backward());
  }
  out.forward_ms = median(fwd);
  out.backward_ms = out.has_backward ? median(bwd) : 0;
  return out;
}

// Max abs error of `got` (a slice's rows, picked by `rows` when not empty) against `want`; NaN if any element of got
// is not finite (a NaN output or a never-written, poisoned element).
double max_error(const double* got_slice, const std::vector<double>& want, const std::vector<int>& rows, int d) {
  double error = 0;
  const std::size_t count = rows.empty() ? want.size() : rows.size() * static_cast<std::size_t>(d);
  for (std::size_t e = 0; e < count; ++e) {
    const std::size_t at = rows.empty() ? e : static_cast<std::size_t>(rows[e / d]) * d + e % d;
    const double g = got_slice[at];
    if (!std::isfinite(g)) return std::numeric_limits<double>::quiet_NaN();
    error = std::max(error, std::abs(g - want[e]));
  }
  return error;
}

double max_abs(const std::vector<double>& x) {
  double m = 0;
  for (double v : x) m = std::max(m, std::abs(v));
  return m;
}

struct Gate {
  std::string name;
  double error = 0;
  double bound = 0;
  bool finite = true;
};

// FlashAttention's rule: error <= 2 x naive error + a slack of a few fp32 ulps of the largest reference value.
Gate gate(const std::string& name, double error, double naive_error, const std::vector<double>& want) {
  Gate g{name, error, 2.0 * naive_error + 0x1.0p-22 * std::max(1.0, max_abs(want)), std::isfinite(error)};
  return g;
}

// The slices compared: the first and the last (batch, head).
std::vector<int> checked_slices(const AttentionShape& s) {
  const int last = s.batch * s.heads - 1;
  return last == 0 ? std::vector<int>{0} : std::vector<int>{0, last};
}

// Full comparison up to seq 1024 (the fp64 reference costs seq^2 x head_dim per slice); beyond, 64 query rows drawn
// at random.
constexpr int kFullUpTo = 1024;
constexpr int kSampledRows = 64;

std::vector<int> pick_rows(int n, std::uint64_t seed) {
  if (n <= kFullUpTo) return {};
  std::vector<int> rows;
  std::uint64_t z = seed;
  for (int r = 0; r < kSampledRows; ++r) {
    z = z * 6364136223846793005ULL + 1442695040888963407ULL;
    rows.push_back(static_cast<int>((z >> 33) % static_cast<std::uint64_t>(n)));
  }
  rows.push_back(n - 1);  // the last row: the longest causal row, and the ragged tile
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

CheckRow finish_row(const CheckCase& c, bool backward, const std::vector<Gate>& gates, double ms,
                    const std::string& scope) {
  CheckRow row;
  row.c = c;
  row.backward = backward;
  row.scope = scope;
  row.ms = ms;
  const double flops = backward ? c.shape.backward_flops() : c.shape.forward_flops();
  row.tflops = ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0;
  double worst_ratio = -1;
  for (const Gate& g : gates) {
    const double ratio = g.finite ? g.error / g.bound : std::numeric_limits<double>::infinity();
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      row.worst = g.name;
      row.error = g.error;
      row.bound = g.bound;
    }
    if (!g.finite && row.failure.empty()) row.failure = g.name + " has NaN, infinite or unwritten elements";
    if (g.finite && g.error > g.bound && row.failure.empty()) row.failure = g.name + " error above the bound";
  }
  return row;
}

}  // namespace

double round_to_precision(double x, Precision p) {
  if (p == Precision::bf16) return static_cast<float>(Eigen::bfloat16(static_cast<float>(x)));
  return static_cast<float>(Eigen::half(static_cast<float>(x)));
}

SliceResult naive_attention_slice(int n, int d, bool causal, const double* q, const double* k, const double* v,
                                  const double* d_o, const std::vector<int>& rows, const Precision* round_to) {
  const auto rd = [round_to](double x) { return round_to ? round_to_precision(x, *round_to) : x; };
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));  // a scalar multiplies in full precision
  std::vector<int> all;
  if (rows.empty()) {
    all.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = i;
  }
  const std::vector<int>& which = rows.empty() ? all : rows;
  const bool full = rows.empty();
  SliceResult r;
  r.o.assign(which.size() * d, 0.0);
  r.lse.assign(which.size(), 0.0);
  r.dq.assign(which.size() * d, 0.0);
  std::vector<double> dk_acc, dv_acc;
  if (full) {
    dk_acc.assign(static_cast<std::size_t>(n) * d, 0.0);
    dv_acc.assign(static_cast<std::size_t>(n) * d, 0.0);
  }
  std::vector<double> qs(d), s(n), p(n), dp(n), ds(n), acc(d);
  for (std::size_t w = 0; w < which.size(); ++w) {
    const int i = which[w];
    const int keys = causal ? i + 1 : n;
    for (int c = 0; c < d; ++c) qs[c] = rd(q[std::size_t(i) * d + c] * scale);
    double max = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < keys; ++j) {
      double dot = 0;
      for (int c = 0; c < d; ++c) dot += qs[c] * k[std::size_t(j) * d + c];
      s[j] = rd(dot);
      max = std::max(max, s[j]);
    }
    double sum = 0;
    for (int j = 0; j < keys; ++j) sum += std::exp(s[j] - max);
    r.lse[w] = max + std::log(sum);
    for (int j = 0; j < keys; ++j) p[j] = rd(std::exp(s[j] - max) / sum);
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int j = 0; j < keys; ++j)
      for (int c = 0; c < d; ++c) acc[c] += p[j] * v[std::size_t(j) * d + c];
    for (int c = 0; c < d; ++c) r.o[w * d + c] = rd(acc[c]);
    // Backward of the same graph: dP = dO V^T, dS = P (dP - rowsum(P dP)), dQ = (dS K) scale, dK += dS^T (Q scale).
    double correction = 0;
    for (int j = 0; j < keys; ++j) {
      double dot = 0;
      for (int c = 0; c < d; ++c) dot += d_o[std::size_t(i) * d + c] * v[std::size_t(j) * d + c];
      dp[j] = rd(dot);
      correction += p[j] * dp[j];
    }
    for (int j = 0; j < keys; ++j) ds[j] = rd(p[j] * (dp[j] - correction));
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int j = 0; j < keys; ++j)
      for (int c = 0; c < d; ++c) acc[c] += ds[j] * k[std::size_t(j) * d + c];
    for (int c = 0; c < d; ++c) r.dq[w * d + c] = rd(rd(acc[c]) * scale);
    if (full) {
      for (int j = 0; j < keys; ++j)
        for (int c = 0; c < d; ++c) {
          dk_acc[std::size_t(j) * d + c] += ds[j] * qs[c];
          dv_acc[std::size_t(j) * d + c] += p[j] * d_o[std::size_t(i) * d + c];
        }
    }
  }
  if (full) {
    r.dk.resize(dk_acc.size());
    r.dv.resize(dv_acc.size());
    for (std::size_t e = 0; e < dk_acc.size(); ++e) {
      r.dk[e] = rd(dk_acc[e]);
      r.dv[e] = rd(dv_acc[e]);
    }
  }
  return r;
}

std::vector<CheckCase> check_grid(CheckDevice d, const std::vector<int>& seqlens, const std::vector<int>& head_dims) {
  std::vector<CheckCase> grid;
  if (d == CheckDevice::cpu) {
    for (const Precision p : {Precision::bf16, Precision::fp16})
      for (const int hd : head_dims)
        for (const bool causal : {false, true})
          for (const int seq : seqlens)
            grid.push_back({{.batch = 2, .heads = 2, .seq = seq, .head_dim = hd, .causal = causal}, p});
    return grid;
  }
  for (const int hd : head_dims)
    for (const bool causal : {false, true})
      for (const int seq : seqlens) {
        const AttentionShape s{.batch = std::max(1, 16384 / seq),
                               .heads = std::max(1, 2048 / hd),
                               .seq = seq,
                               .head_dim = hd,
                               .causal = causal};
        grid.push_back({s, Precision::bf16});
        if (seq == 1024) grid.push_back({s, Precision::fp16});
      }
  return grid;
}

std::vector<CheckRow> run_check(CheckDevice device, const CheckCase& c, std::uint64_t seed, int timing_repeats) {
  const AttentionShape& s = c.shape;
  if (device == CheckDevice::cuda && !cuda_forward_supports(s))
    throw std::invalid_argument("the CUDA kernels take head_dim 64, 128 or 256 (backward: 64 or 128)");
  const Inputs in(s, seed, c.precision);
  const Outputs got = device == CheckDevice::cpu ? run_cpu(c, in) : run_cuda(c, in, timing_repeats);

  const std::vector<int> rows = pick_rows(s.seq, seed ^ 0x5555);
  const std::string scope = rows.empty() ? "full" : "rows";
  const int n = s.seq;
  const int d = s.head_dim;
  std::vector<Gate> fwd_gates, bwd_gates;
  const auto merge = [](std::vector<Gate>& gates, Gate g) {
    for (Gate& have : gates)
      if (have.name == g.name) {
        const double have_ratio = have.finite ? have.error / have.bound : INFINITY;
        const double ratio = g.finite ? g.error / g.bound : INFINITY;
        if (ratio > have_ratio) have = g;
        return;
      }
    gates.push_back(g);
  };
  for (const int slice : checked_slices(s)) {
    const std::size_t at = static_cast<std::size_t>(slice) * n * d;
    const std::size_t row_at = static_cast<std::size_t>(slice) * n;
    // The reference and the naive baseline are independent: one of them on a second thread.
    const auto slice_result = [&](const Precision* round_to) {
      return naive_attention_slice(n, d, s.causal, &in.q[at], &in.k[at], &in.v[at], &in.d_o[at], rows, round_to);
    };
    auto pending_ref = std::async(std::launch::async, slice_result, nullptr);
    const SliceResult naive = slice_result(&c.precision);
    const SliceResult ref = pending_ref.get();
    const auto naive_error = [&](const std::vector<double>& x, const std::vector<double>& want) {
      double e = 0;
      for (std::size_t i = 0; i < x.size(); ++i) e = std::max(e, std::abs(x[i] - want[i]));
      return e;
    };
    merge(fwd_gates, gate("o", max_error(&got.o[at], ref.o, rows, d), naive_error(naive.o, ref.o), ref.o));
    // lse has no naive counterpart that rounds; it is held to the fp32 kernel's own accuracy: 1e-3 absolute.
    const double lse_error = max_error(&got.lse[row_at], ref.lse, rows, 1);
    merge(fwd_gates, Gate{"lse", lse_error, 1e-3 * std::max(1.0, max_abs(ref.lse)), std::isfinite(lse_error)});
    if (got.has_backward) {
      merge(bwd_gates, gate("dq", max_error(&got.dq[at], ref.dq, rows, d), naive_error(naive.dq, ref.dq), ref.dq));
      if (rows.empty()) {
        merge(bwd_gates, gate("dk", max_error(&got.dk[at], ref.dk, {}, d), naive_error(naive.dk, ref.dk), ref.dk));
        merge(bwd_gates, gate("dv", max_error(&got.dv[at], ref.dv, {}, d), naive_error(naive.dv, ref.dv), ref.dv));
      }
    }
  }
  std::vector<CheckRow> out{finish_row(c, false, fwd_gates, got.forward_ms, scope)};
  if (got.has_backward) out.push_back(finish_row(c, true, bwd_gates, got.backward_ms, scope));
  return out;
}

}  // namespace tt::kernels
