#include "core/calib/tuner_config.hpp"

#include <set>
#include <tuple>

#include "core/plan/comm_layout.hpp"

namespace tt {
namespace {

const char* tuner_name(Collective c) {
  switch (c) {
    case Collective::AllReduce: return "allreduce";
    case Collective::AllGather: return "allgather";
    case Collective::ReduceScatter: return "reducescatter";
    case Collective::Broadcast: return "broadcast";
    case Collective::Reduce: return "reduce";
    default: return nullptr;
  }
}

const char* tuner_name(Algorithm a) {
  switch (a) {
    case Algorithm::Ring: return "ring";
    case Algorithm::Tree: return "tree";
    case Algorithm::Nvls: return "nvls";
    case Algorithm::NvlsTree: return "nvls_tree";
    default: return nullptr;
  }
}

const char* tuner_name(Protocol p) {
  switch (p) {
    case Protocol::LL: return "ll";
    case Protocol::LL128: return "ll128";
    default: return "simple";
  }
}

constexpr double kMaxBytes = 4294967295.0;  // the example's "all sizes" bound

}  // namespace

std::string tuner_config_csv(const CommPlanner& planner,
                             const std::vector<std::pair<Collective, std::vector<int>>>& communicators) {
  std::string out =
      "# NCCL tuner configuration from traintwin's plan (" + planner.constants().source +
      (planner.constants().regime_source.empty() ? "" : "; corrections: " + planner.constants().regime_source) +
      (planner.constants().selection == Selection::Nccl
           ? "; options as NCCL's figures pick them"
           : "; options the fastest under the corrections") +
      ")\n# Format: collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff\n";
  std::set<std::tuple<int, int, int>> seen;  // collective, nodes, ranks
  for (const auto& [c, gpus] : communicators) {
    const GroupLayout l = layout_of(gpus, planner.topology().gpus_per_node());
    const int nodes = static_cast<int>(l.nodes.size()), ranks = l.size();
    if (ranks < 2 || !seen.insert({static_cast<int>(c), nodes, ranks}).second) continue;
    if (!tuner_name(c)) {
      out += std::string("# ") + to_string(c) + " on " + std::to_string(ranks) +
             " ranks: NCCL's tuner does not steer point-to-point collectives\n";
      continue;
    }
    struct Range {
      double min, max;
      Algorithm a;
      Protocol p;
    };
    std::vector<Range> ranges;
    double prev_size = 0;
    for (double size = 1; size <= kMaxBytes; size *= 2) {
      const CommGroup g = planner.plan(c, gpus, Bytes(size));
      if (g.phases.empty()) break;
      if (!ranges.empty() && ranges.back().a == g.algorithm && ranges.back().p == g.protocol) {
        ranges.back().max = size;
      } else {
        const double start = ranges.empty() ? 0 : static_cast<double>(static_cast<long long>((prev_size + size) / 2));
        if (!ranges.empty()) ranges.back().max = start - 1;
        ranges.push_back({start, size, g.algorithm, g.protocol});
      }
      prev_size = size;
    }
    if (!ranges.empty()) ranges.back().max = kMaxBytes;
    for (const Range& r : ranges) {
      const std::string range = std::to_string(static_cast<long long>(r.min)) + "," +
                                std::to_string(static_cast<long long>(r.max));
      if (!tuner_name(r.a)) {
        out += std::string("# ") + tuner_name(c) + "," + range + ": the plan runs " + to_string(r.a) +
               ", which NCCL has no algorithm name for; NCCL keeps its own choice here\n";
        continue;
      }
      out += std::string(tuner_name(c)) + "," + range + "," + tuner_name(r.a) + "," + tuner_name(r.p) + ",-1," +
             std::to_string(nodes) + "," + std::to_string(ranks) + ",-1,-1\n";
    }
  }
  return out;
}

}  // namespace tt
