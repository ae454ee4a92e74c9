// traintwin comm --topology T --gpus N [--nodes M] --collective C -b 8 -e 8G -f 2 [--sim] [--json]: predicted (and,
// with --sim, simulated) performance of one collective over message sizes, in nccl-tests' table layout.
#include <cctype>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "core/io/input_error.hpp"
#include "core/io/scenario_reader.hpp"
#include "core/plan/comm_sweep.hpp"
#include "sim/comm_sweep.hpp"

namespace tt::cli {
namespace {

struct CommArgs {
  std::string topology;
  int gpus = 0;
  int nodes = 0;
  std::string collective = "all_reduce";
  std::string begin = "8", end = "8G";
  double factor = 2;
  int root = 0;
  std::string algo, proto;
  bool sim = false;
  bool json = false;
};

// nccl-tests' sizes ("8", "1K", "8G": binary multiples) or ours ("1KiB", "8GB").
std::optional<Bytes> parse_size(const std::string& text) {
  if (!text.empty()) {
    std::size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
    const std::string rest = text.substr(digits);
    if (digits > 0 && rest.size() <= 1) {
      double v = std::stod(text.substr(0, digits));
      const char u = rest.empty() ? 'B' : static_cast<char>(std::toupper(static_cast<unsigned char>(rest[0])));
      const double scale = u == 'B' ? 1 : u == 'K' ? 1024.0 : u == 'M' ? 1048576.0 : u == 'G' ? 1073741824.0 : 0;
      if (scale > 0) return Bytes(v * scale);
    }
  }
  return parse_bytes(text);
}

[[noreturn]] void bad(const std::string& option, const std::string& expected) {
  throw InputError("command line", option, expected);
}

int run(const CommArgs& a) {
  Topology topo = read_topology_file(a.topology);
  auto c = parse_collective(a.collective);
  if (!c) bad("--collective", "all_reduce, reduce_scatter, all_gather, broadcast, reduce, alltoall or sendrecv");
  auto begin = parse_size(a.begin), end = parse_size(a.end);
  if (!begin || begin->value <= 0) bad("-b", "a size such as 8, 1K, 64M or 1GiB");
  if (!end || *end < *begin) bad("-e", "a size at least -b's, such as 8G");
  if (a.factor <= 1) bad("-f", "a factor greater than 1");
  std::vector<int> gpus;
  try {
    gpus = pick_gpus(topo, a.gpus, a.nodes);
  } catch (const std::invalid_argument& e) {
    bad("--gpus", e.what());
  }
  if (a.root < 0 || a.root >= static_cast<int>(gpus.size())) bad("--root", "a rank below --gpus");
  CommOverrides o;
  if (!a.algo.empty() || !a.proto.empty()) {
    auto algo = parse_algorithm(a.algo.empty() ? "ring" : a.algo);
    auto proto = parse_protocol(a.proto.empty() ? "Simple" : a.proto);
    if (!algo) bad("--algo", "ring, tree, nvls, nvls_tree, hierarchical or p2p");
    if (!proto) bad("--proto", "LL, LL128 or Simple");
    if (!a.algo.empty()) o.algorithms = std::vector<Algorithm>{*algo};
    if (!a.proto.empty()) o.protocols = std::vector<Protocol>{*proto};
  }
  CommPlanner planner(topo, comm_constants(topo.gpu(), o));
  Sweep sweep = plan_sweep(planner, *c, gpus, sweep_sizes(*begin, *end, a.factor), a.root);
  if (sweep.rows.empty() || sweep.rows[0].group.phases.empty())
    bad("--gpus", "at least two GPUs and an algorithm that can run " + a.collective + " on them");
  int errors = 0;
  std::string error;
  if (a.sim) errors = sim::measure_sweep(topo, sweep, &error);
  if (a.json) {
    nlohmann::json j = sweep_json(sweep, errors);
    j["topology"] = topo.name();
    j["gpu"] = topo.gpu().name;
    j["constants"] = planner.constants().source;
    if (!error.empty()) j["error"] = error;
    std::cout << j.dump(2) << "\n";
  } else {
    const std::string title = "traintwin comm: " + a.collective + " on " + std::to_string(gpus.size()) + " x " +
                              topo.gpu().name + " (" + std::to_string(sweep.nodes) + " node(s)) of topology " +
                              topo.name() + "\n# cost model: " + planner.constants().source +
                              (a.sim ? "\n# sim: each size one step of one SimGrid run of the topology" : "");
    std::cout << sweep_table(sweep, title, errors);
    if (!error.empty()) std::fprintf(stderr, "sim: %s\n", error.c_str());
  }
  return errors ? kExitChecksFailed : 0;
}

}  // namespace

Registered add_comm(CLI::App& app) {
  auto a = std::make_shared<CommArgs>();
  auto* sub = app.add_subcommand(
      "comm", "Predict (and with --sim, simulate) one collective over message sizes, in nccl-tests' table layout");
  sub->add_option("--topology", a->topology, "topology JSON file")->required();
  sub->add_option("--gpus", a->gpus, "ranks in all")->required();
  sub->add_option("--nodes", a->nodes, "nodes they spread over (default: as few as fit)");
  sub->add_option("--collective", a->collective,
                  "all_reduce, reduce_scatter, all_gather, broadcast, reduce, "
                  "alltoall, sendrecv")
      ->capture_default_str();
  sub->add_option("-b,--minbytes", a->begin, "smallest size (8, 1K, 64M, 1GiB)")->capture_default_str();
  sub->add_option("-e,--maxbytes", a->end, "largest size")->capture_default_str();
  sub->add_option("-f,--stepfactor", a->factor, "size multiplier between rows")->capture_default_str();
  sub->add_option("--root", a->root, "root rank of broadcast and reduce")->capture_default_str();
  sub->add_option("--algo", a->algo, "only this algorithm (like NCCL_ALGO): ring, tree, nvls, nvls_tree, hierarchical");
  sub->add_option("--proto", a->proto, "only this protocol (like NCCL_PROTO): LL, LL128, Simple");
  sub->add_flag("--sim", a->sim, "also measure every size in a SimGrid run of the topology");
  sub->add_flag("--json", a->json, "print JSON instead of the table");
  return {sub, [a] { return run(*a); }};
}

}  // namespace tt::cli
