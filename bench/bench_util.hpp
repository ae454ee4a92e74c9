// What the benchmarks share: the H100 rail-optimized fabric they simulate, and the peak RSS they report.
#pragma once

#include <sys/resource.h>

#include <nlohmann/json.hpp>
#include <string>

namespace tt::bench {

// `nodes` x 8 H100, 400 Gb/s NICs, 32 nodes per leaf group, non-blocking spines, a storage target.
inline nlohmann::json rail_h100_topology(int nodes, int spines, const std::string& storage_bandwidth) {
  return {{"name", "rail-" + std::to_string(nodes) + "x8-h100"},
          {"generator", "rail-optimized"},
          {"gpu", "H100-SXM"},
          {"nodes", nodes},
          {"gpus_per_node", 8},
          {"nic_bandwidth", "400Gbps"},
          {"nodes_per_group", 32},
          {"spines", spines},
          {"oversubscription", 1},
          {"storage", {{"bandwidth", storage_bandwidth}}}};
}

// Peak resident set size of this process so far (MiB).
inline double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// CPU seconds this process has run, user and system (a forked child counts from its fork): unlike wall time, not
// the time it waited for a core other processes held.
inline double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return seconds(u.ru_utime) + seconds(u.ru_stime);
}

}  // namespace tt::bench
