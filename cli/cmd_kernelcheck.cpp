// traintwin kernelcheck [--device auto|cuda|cpu] [--seqlens ...] [--head-dims ...] [--seed S] [--json]: the numerics
// gate of the attention kernels over a grid of shapes (kernels/kernelcheck.hpp), one table with the error, its bound
// and TFLOP/s per pass, and an OK/FAILED footer. Exit 0 all passed, 1 one failed, 2 bad options, 4 no CUDA device.
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>

#include "cli/commands.hpp"
#include "core/io/input_error.hpp"
#include "kernels/kernelcheck.hpp"

namespace tt::cli {
namespace {

using kernels::CheckDevice;
using kernels::CheckRow;

struct KernelcheckArgs {
  std::string device = "auto";
  std::vector<int> seqlens;
  std::vector<int> head_dims;
  std::uint64_t seed = 0;
  CLI::Option* seed_opt = nullptr;
  int repeats = 5;
  bool json = false;
};

std::string row_line(const CheckRow& r) {
  char line[256];
  const auto& s = r.c.shape;
  std::snprintf(line, sizeof line, "  %4s %6d %5d %6d %5d %6s %4s %5s %5s %12.4e %12.4e %10.3f %9.3f  %s\n",
                kernels::precision_name(r.c.precision), s.batch, s.heads, s.seq, s.head_dim, s.causal ? "yes" : "no",
                r.backward ? "bwd" : "fwd", r.scope.c_str(), r.worst.c_str(), r.error, r.bound, r.ms, r.tflops,
                r.ok() ? "OK" : ("FAILED: " + r.failure).c_str());
  return line;
}

nlohmann::json row_json(const CheckRow& r) {
  const auto& s = r.c.shape;
  return {{"precision", kernels::precision_name(r.c.precision)},
          {"batch", s.batch},
          {"heads", s.heads},
          {"seq", s.seq},
          {"head_dim", s.head_dim},
          {"causal", s.causal},
          {"pass", r.backward ? "backward" : "forward"},
          {"scope", r.scope},
          {"worst", r.worst},
          {"max_error", r.error},
          {"bound", r.bound},
          {"ms", r.ms},
          {"tflops", r.tflops},
          {"ok", r.ok()},
          {"failure", r.failure}};
}

int run(const KernelcheckArgs& a) {
  CheckDevice device = CheckDevice::cpu;
  if (a.device == "cuda" || (a.device == "auto" && kernels::cuda_device_present())) device = CheckDevice::cuda;
  if (device == CheckDevice::cuda && !kernels::cuda_device_present()) {
    std::fprintf(stderr,
                 "kernelcheck: --device cuda: %s; nothing was checked (exit %d). --device cpu checks the CPU "
                 "kernels.\n",
                 kernels::cuda_device_description().c_str(), kExitNoDevice);
    return kExitNoDevice;
  }
  const bool cuda = device == CheckDevice::cuda;
  std::vector<int> seqlens = a.seqlens;
  if (seqlens.empty())
    seqlens = cuda ? std::vector<int>{512, 1024, 2048, 4096, 8192, 16384} : std::vector<int>{173, 256};
  std::vector<int> head_dims = a.head_dims;
  if (head_dims.empty()) head_dims = {64, 128};
  for (int n : seqlens)
    if (n < 1) throw InputError("command line", "--seqlens", "sequence lengths >= 1");
  for (int d : head_dims)
    if (cuda ? (d != 64 && d != 128 && d != 256) : (d < 1 || d > 512))
      throw InputError("command line", "--head-dims", cuda ? "64, 128 or 256 on CUDA" : "head dims in 1..512");
  const std::uint64_t seed = a.seed_opt->count() ? a.seed : std::random_device{}();

  const std::string what =
      cuda ? "cuda: " + kernels::cuda_device_description() : "cpu: tiled fp32 kernel on bf16/fp16-rounded inputs";
  std::vector<CheckRow> rows;
  int failed = 0;
  if (!a.json) {
    std::printf("# traintwin kernelcheck, %s; seed %" PRIu64 "\n", what.c_str(), seed);
    std::printf(
        "# gate: max |out - fp64 reference| <= 2 x that of the naive attention in the input precision "
        "(+ 2^-22 x max|ref|); outputs NaN-poisoned first\n");
    std::printf("# %4s %6s %5s %6s %5s %6s %4s %5s %5s %12s %12s %10s %9s  %s\n", "prec", "batch", "heads", "seq",
                "hdim", "causal", "pass", "scope", "worst", "max error", "bound", "time(ms)", "TFLOP/s", "status");
  }
  std::uint64_t case_seed = seed;
  for (const auto& c : kernels::check_grid(device, seqlens, head_dims)) {
    case_seed = case_seed * 6364136223846793005ULL + 1442695040888963407ULL;  // fresh inputs for every case
    for (const CheckRow& r : kernels::run_check(device, c, case_seed, a.repeats)) {
      failed += r.ok() ? 0 : 1;
      if (!a.json) {
        std::cout << row_line(r);
        std::cout.flush();
      }
      rows.push_back(r);
    }
  }
  if (a.json) {
    nlohmann::json j = {{"device", cuda ? "cuda" : "cpu"}, {"description", what}, {"seed", seed},
                        {"rows", nlohmann::json::array()}, {"failed", failed},    {"status", failed ? "FAILED" : "OK"}};
    for (const auto& r : rows) j["rows"].push_back(row_json(r));
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf(
        "# compared: the first and last (batch, head); scope full: every element, rows: 64 sampled query rows "
        "and the last (backward then gates dQ only)\n# TFLOP/s by FlashAttention's count: fwd 4 x batch x "
        "seq^2 x heads x hdim, halved when causal; bwd 2.5 x fwd\n");
    std::printf("# Checks: %zu, failed %d: %s\n", rows.size(), failed, failed ? "FAILED" : "OK");
  }
  return failed ? kExitChecksFailed : 0;
}

}  // namespace

Registered add_kernelcheck(CLI::App& app) {
  auto a = std::make_shared<KernelcheckArgs>();
  auto* sub = app.add_subcommand(
      "kernelcheck",
      "Check the attention kernels' numerics against an fp64 reference and time them; exit 1 if one fails");
  sub->add_option("--device", a->device,
                  "cuda (exit 4 when there is no CUDA device), cpu, or auto: cuda when a device is present")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  sub->add_option("--seqlens", a->seqlens, "sequence lengths (default cuda: 512 .. 16384; cpu: 173 256)")
      ->delimiter(',');
  sub->add_option("--head-dims", a->head_dims, "head dimensions (default 64 128)")->delimiter(',');
  a->seed_opt = sub->add_option("--seed", a->seed, "seed of the random inputs (default: a fresh one, printed)");
  sub->add_option("--repeats", a->repeats, "timed calls per pass on CUDA (the median is shown)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  sub->add_flag("--json", a->json, "print JSON instead of the table");
  return {sub, [a] { return run(*a); }};
}

}  // namespace tt::cli
