// traintwin commtest --devices cpu:N|cuda[:N] --collective all_reduce -b 8 -e 1G -f 2 [--json]: nccl-tests'
// connectivity and all-reduce check on this machine (real/nccl_tests.hpp), Gloo on CPU ranks or NCCL on GPUs, in
// nccl-tests' table layout with the wrong elements of every size counted. Exit 0 none wrong, 1 some wrong, 2 bad
// options, 3 a rank failed, 4 no CUDA device.
#include <stdlib.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/io/input_error.hpp"
#include "core/model/units.hpp"
#include "kernels/attention_cuda.hpp"
#include "real/nccl_collective.hpp"
#include "real/nccl_tests.hpp"

namespace tt::cli {
namespace {

struct CommtestArgs {
  std::string devices = "cpu:2";
  std::string collective = "all_reduce";
  std::string begin = "8", end = "1G";
  double factor = 2;
  double timeout = 60;
  int corrupt_rank = -1;
  bool json = false;
};

[[noreturn]] void bad(const std::string& option, const std::string& expected) {
  throw InputError("command line", option, expected);
}

// nccl-tests' sizes: a whole number with an optional K, M or G (binary multiples).
std::int64_t parse_size(const std::string& text, const std::string& option) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  const std::string unit = text.substr(digits);
  if (digits == 0 || digits > 12 || unit.size() > 1) bad(option, "a size such as 8, 1K, 64M or 1G");
  const std::int64_t v = std::stoll(text.substr(0, digits));
  const char u = unit.empty() ? 'B' : static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0])));
  const std::int64_t scale = u == 'B' ? 1 : u == 'K' ? 1 << 10 : u == 'M' ? 1 << 20 : u == 'G' ? 1 << 30 : 0;
  if (scale == 0) bad(option, "a size such as 8, 1K, 64M or 1G");
  return v * scale;
}

struct Devices {
  bool cuda = false;
  int ranks = 0;
};

Devices parse_devices(const std::string& text) {
  Devices d;
  std::string count;
  if (text == "cuda") {
    d.cuda = true;
  } else if (text.rfind("cuda:", 0) == 0) {
    d.cuda = true;
    count = text.substr(5);
  } else if (text.rfind("cpu:", 0) == 0) {
    count = text.substr(4);
  } else {
    bad("--devices", "cpu:N or cuda[:N]");
  }
  if (!count.empty()) {
    if (count.size() > 4 || count.find_first_not_of("0123456789") != std::string::npos) bad("--devices", "N >= 1");
    d.ranks = std::stoi(count);
    if (d.ranks < 1 || (!d.cuda && d.ranks > 64)) bad("--devices", "N between 1 and 64 CPU ranks");
  }
  return d;
}

std::string table(const std::vector<real::CommTestRow>& rows, const std::string& title, std::int64_t wrong,
                  double avg_busbw) {
  std::string out = title;
  char line[512];
  std::snprintf(line, sizeof line, "#\n# %10s %12s %8s %6s %6s %33s %33s\n", "", "", "", "", "", "out-of-place",
                "in-place");
  out += line;
  std::snprintf(line, sizeof line, "# %10s %12s %8s %6s %6s %9s %7s %7s %7s %9s %7s %7s %7s\n", "size", "count", "type",
                "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
  out += line;
  std::snprintf(line, sizeof line, "# %10s %12s %8s %6s %6s %9s %7s %7s %7s %9s %7s %7s %7s\n", "(B)", "(elements)", "",
                "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  out += line;
  for (const auto& r : rows) {
    std::snprintf(line, sizeof line, "  %10lld %12lld %8s %6s %6d %9.2f %7.2f %7.2f %7lld %9.2f %7.2f %7.2f %7lld\n",
                  static_cast<long long>(r.bytes), static_cast<long long>(r.count), "float", "sum", -1,
                  r.out_of_place.us, r.out_of_place.algbw / 1e9, r.out_of_place.busbw / 1e9,
                  static_cast<long long>(r.out_of_place.wrong), r.in_place.us, r.in_place.algbw / 1e9,
                  r.in_place.busbw / 1e9, static_cast<long long>(r.in_place.wrong));
    out += line;
  }
  std::snprintf(line, sizeof line, "# Wrong elements : %lld %s\n# Avg bus bandwidth    : %.3f GB/s\n",
                static_cast<long long>(wrong), wrong ? "FAILED" : "OK", avg_busbw / 1e9);
  out += line;
  return out;
}

// nccl-tests' program and device lines, so that core/calib's reader (and `traintwin accept --nccl-tests`) knows the
// collective and the rank and host counts of a saved log.
std::string device_lines(int ranks, bool cuda) {
  char host[256] = "localhost";
  if (::gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "localhost");
  host[sizeof host - 1] = '\0';
  std::string out = "# Collective test starting: all_reduce_perf\n";
  char line[512];
  for (int r = 0; r < ranks; ++r) {
    std::snprintf(line, sizeof line, "#  Rank %2d Group  0 Pid %6d on %10s device %2d [%s] %s\n", r,
                  static_cast<int>(::getpid()), host, r, cuda ? "cuda" : "cpu", cuda ? "CUDA device" : "CPU rank");
    out += line;
  }
  return out;
}

int run(const CommtestArgs& a) {
  if (a.collective != "all_reduce") bad("--collective", "all_reduce (the only collective commtest runs so far)");
  Devices devices = parse_devices(a.devices);
  const std::int64_t begin = parse_size(a.begin, "-b");
  const std::int64_t end = parse_size(a.end, "-e");
  if (begin < 4) bad("-b", "at least 4 bytes (one float)");
  if (end < begin) bad("-e", "a size at least -b's");
  if (a.factor <= 1) bad("-f", "a factor greater than 1");
  if (devices.cuda) {
    if (!kernels::cuda_device_present()) {
      std::fprintf(stderr, "commtest: --devices %s: %s; nothing was tested (exit %d)\n", a.devices.c_str(),
                   kernels::cuda_device_description().c_str(), kExitNoDevice);
      return kExitNoDevice;
    }
    const int visible = kernels::cuda_device_count();
    if (devices.ranks == 0) devices.ranks = visible;
    if (devices.ranks > visible) bad("--devices", "at most the " + std::to_string(visible) + " visible CUDA devices");
  }
  if (a.corrupt_rank >= devices.ranks) bad("--corrupt-rank", "a rank below N");

  real::CommTestOptions o;
  o.ranks = devices.ranks;
  for (double size = static_cast<double>(begin); size <= static_cast<double>(end) * (1 + 1e-12); size *= a.factor) {
    const std::int64_t bytes = static_cast<std::int64_t>(size) / 4 * 4;
    if (o.sizes.empty() || o.sizes.back() != bytes) o.sizes.push_back(bytes);
  }
  o.timeout = std::chrono::milliseconds(static_cast<long long>(a.timeout * 1000));
  o.corrupt_rank = a.corrupt_rank;

  std::vector<real::CommTestRow> rows;
  std::string provider;
  if (devices.cuda) {
    provider = real::nccl_version() + ", one thread per GPU";
    rows = real::run_commtest_nccl(o);
  } else {
    std::string templ = (std::filesystem::temp_directory_path() / "traintwin-commtest-XXXXXX").string();
    if (!::mkdtemp(templ.data())) throw std::runtime_error("mkdtemp " + templ + " failed");
    o.store_dir = templ;
    provider = "Gloo ring, TCP on 127.0.0.1, one thread per rank";
    try {
      rows = real::run_commtest_gloo(o);
    } catch (...) {
      std::filesystem::remove_all(o.store_dir);
      throw;
    }
    std::filesystem::remove_all(o.store_dir);
  }
  std::int64_t wrong = 0;
  double busbw_sum = 0;
  for (const auto& r : rows) {
    wrong += r.out_of_place.wrong + r.in_place.wrong;
    busbw_sum += (r.out_of_place.busbw + r.in_place.busbw) / 2;
  }
  const double avg_busbw = rows.empty() ? 0 : busbw_sum / static_cast<double>(rows.size());
  if (a.json) {
    nlohmann::json j = {{"collective", a.collective},
                        {"devices", a.devices},
                        {"ranks", o.ranks},
                        {"provider", provider},
                        {"rows", nlohmann::json::array()},
                        {"wrong", wrong},
                        {"avg_busbw_gbps", avg_busbw / 1e9},
                        {"status", wrong ? "FAILED" : "OK"}};
    for (const auto& r : rows) {
      const auto pass = [](const real::CommTestPass& p) {
        return nlohmann::json{
            {"time_us", p.us}, {"algbw_gbps", p.algbw / 1e9}, {"busbw_gbps", p.busbw / 1e9}, {"wrong", p.wrong}};
      };
      j["rows"].push_back({{"size", r.bytes},
                           {"count", r.count},
                           {"type", "float"},
                           {"redop", "sum"},
                           {"root", -1},
                           {"out_of_place", pass(r.out_of_place)},
                           {"in_place", pass(r.in_place)}});
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::string title = "# traintwin commtest: all_reduce over " + std::to_string(o.ranks) + " " +
                        (devices.cuda ? "CUDA" : "CPU") + " rank(s); " + provider +
                        "\n# check: every element of every rank's result against the exact sum\n";
    title += device_lines(o.ranks, devices.cuda);
    std::cout << table(rows, title, wrong, avg_busbw);
  }
  return wrong ? kExitChecksFailed : 0;
}

}  // namespace

Registered add_commtest(CLI::App& app) {
  auto a = std::make_shared<CommtestArgs>();
  auto* sub = app.add_subcommand(
      "commtest", "Run and check an all-reduce over sizes on this machine's ranks (Gloo or NCCL), nccl-tests' table");
  sub->add_option("--devices", a->devices, "cpu:N (N Gloo ranks) or cuda[:N] (NCCL, one rank per GPU; exit 4 if none)")
      ->capture_default_str();
  sub->add_option("--collective", a->collective, "all_reduce")->capture_default_str();
  sub->add_option("-b,--minbytes", a->begin, "smallest size (8, 1K, 64M, 1G)")->capture_default_str();
  sub->add_option("-e,--maxbytes", a->end, "largest size")->capture_default_str();
  sub->add_option("-f,--stepfactor", a->factor, "size multiplier between rows")->capture_default_str();
  sub->add_option("--timeout", a->timeout, "seconds a rank waits for its peers before it fails")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub->add_flag("--json", a->json, "print JSON instead of the table");
  sub->add_option("--corrupt-rank", a->corrupt_rank, "test hook: this rank perturbs one input element")->group("");
  return {sub, [a] { return run(*a); }};
}

}  // namespace tt::cli
