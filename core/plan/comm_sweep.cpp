#include "core/plan/comm_sweep.hpp"

#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>

namespace tt {

namespace {

constexpr double kTypeSize = 4;  // float

// Elements per rank must be whole where each rank holds 1/n of the buffer.
long long count_divisor(Collective c, int ranks) {
  return c == Collective::AllGather || c == Collective::ReduceScatter || c == Collective::AllToAll ? ranks : 1;
}

}  // namespace

std::vector<Bytes> sweep_sizes(Bytes begin, Bytes end, double factor) {
  std::vector<Bytes> out;
  if (begin.value <= 0 || end < begin) return out;
  if (factor <= 1) return begin == end ? std::vector<Bytes>{begin} : std::vector<Bytes>{begin, end};
  for (double s = begin.value; s <= end.value * (1 + 1e-12); s *= factor) out.push_back(Bytes(std::floor(s)));
  return out;
}

std::vector<int> pick_gpus(const Topology& topo, int gpus, int nodes) {
  const int per_node_max = topo.gpus_per_node();
  const int total_nodes = static_cast<int>(topo.nodes().size());
  if (gpus < 1) throw std::invalid_argument("--gpus must be at least 1");
  if (nodes < 1) nodes = (gpus + per_node_max - 1) / per_node_max;
  if (nodes > total_nodes)
    throw std::invalid_argument("the topology has " + std::to_string(total_nodes) + " nodes; asked for " +
                                std::to_string(nodes));
  if (gpus % nodes != 0 || gpus / nodes > per_node_max)
    throw std::invalid_argument(std::to_string(gpus) + " GPUs do not spread evenly over " + std::to_string(nodes) +
                                " nodes of " + std::to_string(per_node_max) + " GPUs");
  std::vector<int> out;
  for (int n = 0; n < nodes; ++n)
    for (int l = 0; l < gpus / nodes; ++l) out.push_back(n * per_node_max + l);
  return out;
}

Sweep plan_sweep(const CommPlanner& planner, Collective c, const std::vector<int>& gpus,
                 const std::vector<Bytes>& sizes, int root, std::optional<std::pair<Algorithm, Protocol>> force) {
  Sweep s;
  s.collective = c;
  s.gpus = gpus;
  s.root = root;
  std::set<int> nodes;
  for (int g : gpus) nodes.insert(g / planner.topology().gpus_per_node());
  s.nodes = static_cast<int>(nodes.size());
  const int n = static_cast<int>(gpus.size());
  const long long div = count_divisor(c, n);
  std::vector<int> members = gpus;
  if (c == Collective::SendRecv && n > 1) members.push_back(gpus[0]);  // nccl-tests: every rank sends to the next
  double last = -1;
  for (Bytes size : sizes) {
    const long long count = static_cast<long long>(size.value / kTypeSize) / div * div;
    const double bytes = static_cast<double>(count) * kTypeSize;
    if (count == 0 || bytes == last) continue;
    last = bytes;
    SweepRow r;
    r.size = Bytes(bytes);
    r.count = count;
    r.group = planner.plan(c, members, r.size, 1, root, force);
    r.predicted = bandwidth(c, n, r.size, r.group.predicted);
    s.rows.push_back(std::move(r));
  }
  return s;
}

void set_measured(Sweep& s, std::size_t row, Seconds t) {
  SweepRow& r = s.rows.at(row);
  r.measured = t;
  r.measured_bw = bandwidth(s.collective, static_cast<int>(s.gpus.size()), r.size, t);
}

double average_busbw(const Sweep& s, bool measured) {
  double sum = 0;
  int count = 0;
  for (const SweepRow& r : s.rows) {
    if (measured && !r.measured) continue;
    sum += (measured ? r.measured_bw : r.predicted).busbw.value;
    ++count;
  }
  return count ? sum / count : 0;
}

std::string sweep_table(const Sweep& s, const std::string& title, int errors) {
  const CollectiveInfo& info = collective_info(s.collective);
  bool any_measured = false;
  for (const SweepRow& r : s.rows) any_measured |= r.measured.has_value();
  std::string out = "# " + title + "\n#\n";
  char line[512];
  std::snprintf(line, sizeof line, "# %10s %12s %8s %6s %6s %10s %8s %8s %13s %8s", "size", "count", "type", "redop",
                "root", "time", "algbw", "busbw", "algorithm", "protocol");
  out += line;
  if (any_measured) {
    std::snprintf(line, sizeof line, " %10s %8s %8s", "sim time", "algbw", "busbw");
    out += line;
  }
  std::snprintf(line, sizeof line, "\n# %10s %12s %8s %6s %6s %10s %8s %8s %13s %8s", "(B)", "(elements)", "", "", "",
                "(us)", "(GB/s)", "(GB/s)", "", "");
  out += line;
  if (any_measured) {
    std::snprintf(line, sizeof line, " %10s %8s %8s", "(us)", "(GB/s)", "(GB/s)");
    out += line;
  }
  out += "\n";
  for (const SweepRow& r : s.rows) {
    std::snprintf(line, sizeof line, "  %10.0f %12lld %8s %6s %6d %10.2f %8.2f %8.2f %13s %8s", r.size.value, r.count,
                  "float", info.reduces ? "sum" : "none", info.rooted ? s.root : -1, r.group.predicted.value * 1e6,
                  r.predicted.algbw.value / 1e9, r.predicted.busbw.value / 1e9, to_string(r.group.algorithm),
                  to_string(r.group.protocol));
    out += line;
    if (r.measured) {
      std::snprintf(line, sizeof line, " %10.2f %8.2f %8.2f", r.measured->value * 1e6, r.measured_bw.algbw.value / 1e9,
                    r.measured_bw.busbw.value / 1e9);
      out += line;
    } else if (any_measured) {
      std::snprintf(line, sizeof line, " %10s %8s %8s", "-", "-", "-");
      out += line;
    }
    out += "\n";
  }
  std::snprintf(line, sizeof line, "# Errors : %d %s\n", errors, errors ? "FAILED" : "OK");
  out += line;
  std::snprintf(line, sizeof line, "# Avg bus bandwidth    : %.3f GB/s (closed form)", average_busbw(s, false) / 1e9);
  out += line;
  if (any_measured) {
    std::snprintf(line, sizeof line, ", %.3f GB/s (simulated)", average_busbw(s, true) / 1e9);
    out += line;
  }
  return out + "\n";
}

nlohmann::json sweep_json(const Sweep& s, int errors) {
  const CollectiveInfo& info = collective_info(s.collective);
  nlohmann::json j;
  j["collective"] = to_string(s.collective);
  j["ranks"] = s.gpus.size();
  j["nodes"] = s.nodes;
  j["gpus"] = s.gpus;
  j["rows"] = nlohmann::json::array();
  for (const SweepRow& r : s.rows) {
    nlohmann::json row{{"size", r.size.value},
                       {"count", r.count},
                       {"type", "float"},
                       {"redop", info.reduces ? "sum" : "none"},
                       {"root", info.rooted ? s.root : -1},
                       {"algorithm", to_string(r.group.algorithm)},
                       {"protocol", to_string(r.group.protocol)},
                       {"time_us", r.group.predicted.value * 1e6},
                       {"latency_us", r.group.latency.value * 1e6},
                       {"algbw_gbps", r.predicted.algbw.value / 1e9},
                       {"busbw_gbps", r.predicted.busbw.value / 1e9}};
    if (r.measured) {
      row["sim_time_us"] = r.measured->value * 1e6;
      row["sim_algbw_gbps"] = r.measured_bw.algbw.value / 1e9;
      row["sim_busbw_gbps"] = r.measured_bw.busbw.value / 1e9;
    }
    j["rows"].push_back(std::move(row));
  }
  j["avg_busbw_gbps"] = average_busbw(s, false) / 1e9;
  bool any = false;
  for (const SweepRow& r : s.rows) any |= r.measured.has_value();
  if (any) j["sim_avg_busbw_gbps"] = average_busbw(s, true) / 1e9;
  j["errors"] = errors;
  j["status"] = errors ? "FAILED" : "OK";
  return j;
}

}  // namespace tt
