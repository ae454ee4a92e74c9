// bench_attention_cpu: throughput of the tiled fp32 CPU attention kernel, forward and backward, in GFLOP/s by
// FlashAttention's count (forward 4 x batch x heads x seq^2 x head_dim, halved when causal; backward 2.5x that), and
// its speedup over the fp64 reference. The reference runs on one (batch, head) of each shape (its cost is linear in
// batch x heads), so the ratio compares GFLOP/s. Prints figures and ratios; never fails on time.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "kernels/attention.hpp"
#include "tests/kernels/random_tensor.hpp"

namespace {

using tt::kernels::AttentionShape;

template <typename T>
std::vector<T> random_tensor(std::int64_t count, std::uint64_t seed) {
  const std::vector<double> x = tt::kernels::test::normal_tensor(count, seed);
  return std::vector<T>(x.begin(), x.end());
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

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Wall and CPU (all threads) seconds of one run, each the median of `reps` runs after a warm-up run. On a machine
// shared with other work, GFLOP per CPU second (per core) stays meaningful when the wall clock does not.
struct Timing {
  double wall_s;
  double cpu_s;
};

template <typename Fn>
Timing median_timing(int reps, const Fn& fn) {
  fn();
  std::vector<double> wall, cpu;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = cpu_seconds();
    fn();
    cpu.push_back(cpu_seconds() - cpu_start);
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

struct Throughput {
  Throughput(double flops, Timing t)
      : ms(t.wall_s * 1e3), gflops(flops / t.wall_s * 1e-9), per_core(flops / t.cpu_s * 1e-9) {}
  double ms;
  double gflops;    // per wall second
  double per_core;  // per CPU second
  nlohmann::json to_json() const { return {{"ms", ms}, {"gflops", gflops}, {"gflops_per_core", per_core}}; }
};

struct Result {
  AttentionShape shape;
  Throughput forward, backward, reference_forward, reference_backward;
  double forward_speedup() const { return forward.gflops / reference_forward.gflops; }
  double backward_speedup() const { return backward.gflops / reference_backward.gflops; }
};

Result measure(const AttentionShape& s, int threads, int reps) {
  Tensors<float> t(s);
  const Timing forward = median_timing(reps, [&] {
    tt::kernels::attention_forward_cpu(s, t.q.data(), t.k.data(), t.v.data(), t.o.data(), t.lse.data(), threads);
  });
  const Timing backward = median_timing(reps, [&] {
    tt::kernels::attention_backward_cpu(s, t.q.data(), t.k.data(), t.v.data(), t.o.data(), t.lse.data(), t.d_o.data(),
                                        t.dq.data(), t.dk.data(), t.dv.data(), threads);
  });

  AttentionShape one = s;
  one.batch = 1;
  one.heads = 1;
  Tensors<double> r(one);
  const Timing reference_forward = median_timing(1, [&] {
    tt::kernels::attention_forward_reference(one, r.q.data(), r.k.data(), r.v.data(), r.o.data(), r.lse.data());
  });
  const Timing reference_backward = median_timing(1, [&] {
    tt::kernels::attention_backward_reference(one, r.q.data(), r.k.data(), r.v.data(), r.o.data(), r.d_o.data(),
                                              r.dq.data(), r.dk.data(), r.dv.data());
  });
  return {s,
          {s.forward_flops(), forward},
          {s.backward_flops(), backward},
          {one.forward_flops(), reference_forward},
          {one.backward_flops(), reference_backward}};
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
        "head) of each shape); median of %d runs; GFLOP/s per wall second and per CPU second (/core)\n",
        resolved_threads, reps);
    std::printf("%5s %5s %5s %4s %6s | %8s %7s %6s | %8s %7s %6s | %7s %7s | %5s %5s\n", "batch", "heads", "seq", "dim",
                "causal", "fwd ms", "GFLOP/s", "/core", "bwd ms", "GFLOP/s", "/core", "ref fwd", "ref bwd", "x fwd",
                "x bwd");
  }
  for (const int seq : seqs) {
    for (const int head_dim : head_dims) {
      for (const bool causal : {false, true}) {
        const AttentionShape s{.batch = batch, .heads = heads, .seq = seq, .head_dim = head_dim, .causal = causal};
        const Result r = measure(s, threads, reps);
        results.push_back(r);
        if (!json) {
          std::printf("%5d %5d %5d %4d %6s | %8.2f %7.1f %6.1f | %8.2f %7.1f %6.1f | %7.2f %7.2f | %5.0f %5.0f\n",
                      s.batch, s.heads, s.seq, s.head_dim, s.causal ? "yes" : "no", r.forward.ms, r.forward.gflops,
                      r.forward.per_core, r.backward.ms, r.backward.gflops, r.backward.per_core,
                      r.reference_forward.gflops, r.reference_backward.gflops, r.forward_speedup(),
                      r.backward_speedup());
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
                                {"forward", r.forward.to_json()},
                                {"backward", r.backward.to_json()},
                                {"reference_forward", r.reference_forward.to_json()},
                                {"reference_backward", r.reference_backward.to_json()},
                                {"forward_speedup", r.forward_speedup()},
                                {"backward_speedup", r.backward_speedup()}});
    }
    std::printf("%s\n", out.dump(2).c_str());
  }
  return 0;
}
