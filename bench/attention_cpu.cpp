// bench_attention_cpu: throughput of the tiled fp32 CPU attention kernel, forward and backward, in GFLOP/s by
// FlashAttention's count (forward 4 x batch x heads x seq^2 x head_dim, halved when causal; backward 2.5x that), and
// its speedup over the fp64 reference. The reference runs on one (batch, head) of each shape (its cost is linear in
// batch x heads), so the ratio compares GFLOP/s. Prints figures and ratios; never fails on time.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "kernels/attention.hpp"

namespace {

using tt::kernels::AttentionShape;

template <typename T>
std::vector<T> random_tensor(std::int64_t count, std::uint64_t seed) {
  std::vector<T> x(static_cast<std::size_t>(count));
  for (T& value : x) {
    std::uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    value = static_cast<T>(static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53 * 2.0 - 1.0);
  }
  return x;
}

template <typename T>
struct Tensors {
  explicit Tensors(const AttentionShape& s)
      : q(random_tensor<T>(s.elements(), 1)),
        k(random_tensor<T>(s.elements(), 2)),
        v(random_tensor<T>(s.elements(), 3)),
        d_o(random_tensor<T>(s.elements(), 4)),
        o(s.elements()),
        lse(s.rows()),
        dq(s.elements()),
        dk(s.elements()),
        dv(s.elements()) {}
  std::vector<T> q, k, v, d_o, o, lse, dq, dk, dv;
};

// Median seconds of `reps` runs after one warm-up run.
template <typename Fn>
double median_seconds(int reps, const Fn& fn) {
  fn();
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

struct Result {
  AttentionShape shape;
  double forward_s, backward_s;
  double forward_gflops, backward_gflops;
  double reference_forward_gflops, reference_backward_gflops;
};

Result measure(const AttentionShape& s, int threads, int reps) {
  Tensors<float> t(s);
  const double forward_s = median_seconds(reps, [&] {
    tt::kernels::attention_forward_cpu(s, t.q.data(), t.k.data(), t.v.data(), t.o.data(), t.lse.data(), threads);
  });
  const double backward_s = median_seconds(reps, [&] {
    tt::kernels::attention_backward_cpu(s, t.q.data(), t.k.data(), t.v.data(), t.o.data(), t.lse.data(), t.d_o.data(),
                                        t.dq.data(), t.dk.data(), t.dv.data(), threads);
  });

  AttentionShape one = s;
  one.batch = 1;
  one.heads = 1;
  Tensors<double> r(one);
  const double reference_forward_s = median_seconds(1, [&] {
    tt::kernels::attention_forward_reference(one, r.q.data(), r.k.data(), r.v.data(), r.o.data(), r.lse.data());
  });
  const double reference_backward_s = median_seconds(1, [&] {
    tt::kernels::attention_backward_reference(one, r.q.data(), r.k.data(), r.v.data(), r.o.data(), r.d_o.data(),
                                              r.dq.data(), r.dk.data(), r.dv.data());
  });
  return {s,
          forward_s,
          backward_s,
          s.forward_flops() / forward_s * 1e-9,
          s.backward_flops() / backward_s * 1e-9,
          one.forward_flops() / reference_forward_s * 1e-9,
          one.backward_flops() / reference_backward_s * 1e-9};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Tiled fp32 CPU attention: forward and backward GFLOP/s, and speedup over the fp64 reference"};
  int threads = 0;
  int reps = 5;
  bool json = false;
  std::vector<int> seqs{1024, 2048};
  std::vector<int> head_dims{64, 128};
  int batch = 1;
  int heads = 8;
  app.add_option("--threads", threads, "threads for the CPU kernel (0: all the hardware has)");
  app.add_option("--reps", reps, "timed runs per measurement (the median is reported)")->check(CLI::PositiveNumber);
  app.add_option("--seq", seqs, "sequence lengths")->check(CLI::PositiveNumber);
  app.add_option("--head-dim", head_dims, "head dimensions")->check(CLI::PositiveNumber);
  app.add_option("--batch", batch)->check(CLI::PositiveNumber);
  app.add_option("--heads", heads)->check(CLI::PositiveNumber);
  app.add_flag("--json", json, "print one JSON object instead of the table");
  CLI11_PARSE(app, argc, argv);
  const int resolved_threads =
      threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));

  std::vector<Result> results;
  if (!json) {
    std::printf(
        "attention_cpu: fp32 tiled kernel on %d threads vs fp64 reference on 1 thread (timed on one (batch, "
        "head) of each shape); median of %d runs\n",
        resolved_threads, reps);
    std::printf("%5s %5s %6s %4s %6s | %9s %8s | %9s %8s | %8s %8s | %7s %7s\n", "batch", "heads", "seq", "dim",
                "causal", "fwd ms", "GFLOP/s", "bwd ms", "GFLOP/s", "ref fwd", "ref bwd", "x fwd", "x bwd");
  }
  for (const int seq : seqs) {
    for (const int head_dim : head_dims) {
      for (const bool causal : {false, true}) {
        const AttentionShape s{.batch = batch, .heads = heads, .seq = seq, .head_dim = head_dim, .causal = causal};
        const Result r = measure(s, threads, reps);
        results.push_back(r);
        if (!json) {
          std::printf("%5d %5d %6d %4d %6s | %9.2f %8.1f | %9.2f %8.1f | %8.2f %8.2f | %7.0f %7.0f\n", s.batch, s.heads,
                      s.seq, s.head_dim, s.causal ? "yes" : "no", r.forward_s * 1e3, r.forward_gflops,
                      r.backward_s * 1e3, r.backward_gflops, r.reference_forward_gflops, r.reference_backward_gflops,
                      r.forward_gflops / r.reference_forward_gflops, r.backward_gflops / r.reference_backward_gflops);
        }
      }
    }
  }
  if (json) {
    nlohmann::json out{{"benchmark", "attention_cpu"},
                       {"threads", resolved_threads},
                       {"reps", reps},
                       {"flops", "FlashAttention: forward 4*batch*heads*seq^2*head_dim (/2 causal), backward 2.5x"},
                       {"reference", "fp64, 1 thread, timed on batch 1 heads 1 of each shape"},
                       {"results", nlohmann::json::array()}};
    for (const Result& r : results) {
      out["results"].push_back({{"batch", r.shape.batch},
                                {"heads", r.shape.heads},
                                {"seq", r.shape.seq},
                                {"head_dim", r.shape.head_dim},
                                {"causal", r.shape.causal},
                                {"forward_ms", r.forward_s * 1e3},
                                {"backward_ms", r.backward_s * 1e3},
                                {"forward_gflops", r.forward_gflops},
                                {"backward_gflops", r.backward_gflops},
                                {"reference_forward_gflops", r.reference_forward_gflops},
                                {"reference_backward_gflops", r.reference_backward_gflops},
                                {"forward_speedup", r.forward_gflops / r.reference_forward_gflops},
                                {"backward_speedup", r.backward_gflops / r.reference_backward_gflops}});
    }
    std::printf("%s\n", out.dump(2).c_str());
  }
  return 0;
}
