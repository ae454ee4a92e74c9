#include "core/io/section_readers.hpp"

#include <algorithm>
#include <array>
#include <filesystem>

#include "core/io/json_reader.hpp"
#include "core/io/reader_support.hpp"

namespace tt::reader {
namespace {

using Json = nlohmann::json;

// An array of names of enum values (case-insensitive, as NCCL_ALGO and NCCL_PROTO take them), each once.
template <class E>
std::vector<E> read_names(JsonObject& o, const std::string& key, std::optional<E> (*parse)(std::string_view),
                          const std::vector<E>& allowed) {
  std::vector<std::string> names;
  for (E e : allowed) names.push_back(to_string(e));
  std::vector<E> out;
  for (const auto& item : o.array(key)) {
    const Json& v = *item.first;
    const std::string& ptr = item.second;
    const std::string text = v.is_string() ? v.get<std::string>() : std::string();
    std::optional<E> e = v.is_string() ? parse(text) : std::nullopt;
    if (!e || std::find(allowed.begin(), allowed.end(), *e) == allowed.end())
      throw InputError(o.file(), ptr,
                       "one of " + list_names(names, names.size()) + ", found " + v.dump() +
                           (v.is_string() ? suggestion(text, names) : ""));
    if (std::find(out.begin(), out.end(), *e) != out.end())
      throw InputError(o.file(), ptr, "each name once; " + v.dump() + " is listed twice");
    out.push_back(*e);
  }
  return out;
}

void read_latency_table(JsonObject& parent, const std::string& key, CommOverrides::ByAlgoProto<Seconds>& table) {
  std::vector<std::string> algos;  // the tabled ones, by Algorithm's value
  for (int a = 0; a < kTabledAlgorithms; ++a) algos.emplace_back(to_string(static_cast<Algorithm>(a)));
  auto o = open_child(parent, key, algos);
  for (int a = 0; a < kTabledAlgorithms; ++a) {
    if (!present(o, algos[a])) continue;
    auto row = open_child(o, algos[a], {"LL", "LL128", "Simple"});
    for (int p = 0; p < kProtocols; ++p) table[a][p] = row.opt_seconds(to_string(static_cast<Protocol>(p)));
    row.finish();
  }
  o.finish();
}

std::optional<std::array<BytesPerSecond, 3>> read_caps(JsonObject& o, const std::string& key) {
  if (!present(o, key)) return std::nullopt;
  const Json& v = o.raw(key);
  if (!v.is_array() || v.size() != 3)
    o.fail(key, "an array of three bandwidths: for one node, two nodes, and more (\"36.7GB/s\")");
  std::array<BytesPerSecond, 3> out;
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string ptr = o.child_pointer(key) + "/" + std::to_string(i);
    auto bw = v[i].is_string() ? parse_bandwidth(v[i].get<std::string>()) : std::nullopt;
    if (!bw || bw->value <= 0)
      throw InputError(o.file(), ptr,
                       "a bandwidth greater than zero with its unit (\"36.7GB/s\"), found " + v[i].dump());
    out[i] = *bw;
  }
  return out;
}

// "regimes": [{"algorithm", "protocol", "nodes": 1 | 2 | 3 (three or more), "band", "latency_factor",
// "bandwidth_factor"}], as `traintwin calibrate` writes them.
std::vector<RegimeOverride> read_regimes(JsonObject& o) {
  std::vector<RegimeOverride> out;
  const std::vector<std::string> bands = {to_string(SizeBand::Small), to_string(SizeBand::Medium),
                                          to_string(SizeBand::Large)};
  std::vector<std::string> algorithms;  // by Algorithm's value
  for (int a = 0; a < kAlgorithms; ++a) algorithms.emplace_back(to_string(static_cast<Algorithm>(a)));
  for (const auto& item : o.array("regimes", true)) {
    auto r = open(*item.first, o.file(), item.second,
                  {"algorithm", "protocol", "nodes", "band", "latency_factor", "bandwidth_factor", "points"});
    RegimeOverride x;
    x.algorithm = static_cast<Algorithm>(
        choice(r, "algorithm", algorithms, "an algorithm"));
    x.protocol = static_cast<Protocol>(choice(r, "protocol", {"LL", "LL128", "Simple"}, "a protocol"));
    x.node_class = int_in(r, "nodes", 1, 3) - 1;
    x.band = static_cast<SizeBand>(choice(r, "band", bands, "a size band"));
    x.factors.latency = r.number("latency_factor", 1e-3, 1e3);
    x.factors.bandwidth = r.number("bandwidth_factor", 1e-3, 1e3);
    if (present(r, "points")) r.integer("points", 0);
    r.finish();
    for (const RegimeOverride& y : out)
      if (y.algorithm == x.algorithm && y.protocol == x.protocol && y.node_class == x.node_class && y.band == x.band)
        throw InputError(o.file(), item.second, "each algorithm, protocol, nodes and band once; this one is repeated");
    out.push_back(x);
  }
  return out;
}

const std::vector<std::string> kSelections = {"nccl", "fastest"};  // by Selection's value

// "selection": how the planner picks among the options (Selection).
Selection read_selection(JsonObject& o) {
  return static_cast<Selection>(choice(o, "selection", kSelections, "how the planner picks"));
}

struct CalibrationFile {
  std::vector<RegimeOverride> regimes;
  std::optional<Selection> selection;  // the rule the regimes were fitted under, when not the default
};

// "calibration": a file `traintwin calibrate --out` wrote (relative to the scenario file): its comm.regimes and, when
// they were fitted under the fastest-option rule, its comm.selection.
CalibrationFile read_calibration_file(JsonObject& o) {
  const std::string name = o.str("calibration");
  namespace fs = std::filesystem;
  const fs::path path = fs::path(o.file()).parent_path() / name;
  std::error_code ec;
  if (name.empty() || !fs::is_regular_file(path, ec))
    o.fail("calibration", "a calibration file (traintwin calibrate --out) relative to the scenario file's directory; " +
                              path.string() + " does not exist or is not a file");
  const Json doc = load_json_file(path.string());
  JsonObject root(doc, path.string(), "");
  if (!root.has("comm")) root.fail("comm", "the comm section traintwin calibrate --out writes");
  auto comm = open_child(root, "comm", {"regimes", "selection"});
  if (!present(comm, "regimes")) comm.fail("regimes", "the fitted regimes");
  CalibrationFile out{read_regimes(comm), std::nullopt};
  if (present(comm, "selection")) out.selection = read_selection(comm);
  comm.finish();
  return out;
}

}  // namespace

PerfConstants read_perf(JsonObject& root) {
  PerfConstants p;
  if (!present(root, "perf")) return p;
  auto o = open_child(root, "perf",
                      {"compute_efficiency", "grad_bytes_per_param", "activation_bytes", "checkpoint_bytes_per_param",
                       "launch_overhead", "snapshot_bandwidth"});
  p.compute_efficiency = opt_positive(o, "compute_efficiency", 1.0).value_or(p.compute_efficiency);
  p.grad_bytes_per_param = opt_positive(o, "grad_bytes_per_param", 8.0).value_or(p.grad_bytes_per_param);
  p.activation_bytes = opt_positive(o, "activation_bytes", 8.0).value_or(p.activation_bytes);
  p.checkpoint_bytes_per_param =
      opt_positive(o, "checkpoint_bytes_per_param", 64.0).value_or(p.checkpoint_bytes_per_param);
  p.launch_overhead = o.opt_seconds("launch_overhead").value_or(p.launch_overhead);
  p.snapshot_bandwidth = o.opt_bandwidth("snapshot_bandwidth").value_or(p.snapshot_bandwidth);
  o.finish();
  return p;
}

CommOverrides read_comm(JsonObject& root) {
  CommOverrides c;
  if (!present(root, "comm")) return c;
  auto o = open_child(root, "comm",
                      {"nvls", "algorithms", "protocols", "channels", "nvlink_efficiency", "net_efficiency",
                       "base_latency", "hw_latency", "caps", "ib_timeout", "ib_retry_cnt", "socket_ifname", "regimes",
                       "calibration", "selection"});
  c.nvls = o.opt_boolean("nvls");
  if (present(o, "algorithms"))
    c.algorithms = read_names<Algorithm>(o, "algorithms", parse_algorithm,
                                         {Algorithm::Ring, Algorithm::Tree, Algorithm::Nvls, Algorithm::NvlsTree,
                                          Algorithm::Hierarchical});
  if (present(o, "protocols"))
    c.protocols =
        read_names<Protocol>(o, "protocols", parse_protocol, {Protocol::LL, Protocol::LL128, Protocol::Simple});
  c.channels = opt_int_in(o, "channels", 1, 64);
  c.nvlink_efficiency = opt_positive(o, "nvlink_efficiency", 1.0);
  c.net_efficiency = opt_positive(o, "net_efficiency", 1.0);
  if (present(o, "base_latency")) read_latency_table(o, "base_latency", c.base_latency);
  if (present(o, "hw_latency")) {
    const std::vector<std::string> media = {"nvlink", "pci", "net"};
    auto hw = open_child(o, "hw_latency", media);
    for (int m = 0; m < kMedia; ++m)
      if (present(hw, media[m])) read_latency_table(hw, media[m], c.hw_latency[m]);
    hw.finish();
  }
  if (present(o, "caps")) {
    auto caps =
        open_child(o, "caps", {"ll_max", "ring_ll128_per_channel", "tree_per_channel", "tree_ll128_per_channel"});
    c.ll_max_bandwidth = read_caps(caps, "ll_max");
    c.ring_ll128_per_channel = read_caps(caps, "ring_ll128_per_channel");
    c.tree_per_channel = read_caps(caps, "tree_per_channel");
    c.tree_ll128_per_channel = read_caps(caps, "tree_ll128_per_channel");
    caps.finish();
  }
  c.ib_timeout = opt_int_in(o, "ib_timeout", 1, 31);
  c.ib_retry_cnt = opt_int_in(o, "ib_retry_cnt", 0, 7);
  c.socket_ifname = o.opt_str("socket_ifname");
  if (present(o, "regimes") && present(o, "calibration"))
    o.fail("calibration", "either regimes or a calibration file, not both");
  if (present(o, "regimes")) c.regimes = read_regimes(o);
  if (present(o, "selection")) c.selection = read_selection(o);
  if (present(o, "calibration")) {
    CalibrationFile f = read_calibration_file(o);
    c.regimes = std::move(f.regimes);
    // Corrections fitted under one rule predict the options that rule picks: the scenario may not pick otherwise.
    const Selection fitted = f.selection.value_or(Selection::Nccl);
    if (c.selection && *c.selection != fitted)
      o.fail("selection", "\"" + kSelections[static_cast<std::size_t>(fitted)] +
                              "\", the rule the calibration file's corrections were fitted under");
    if (f.selection) c.selection = f.selection;
  }
  o.finish();
  return c;
}

SimOptions read_sim(JsonObject& root) {
  SimOptions s;
  if (!present(root, "sim")) return s;
  auto o = open_child(root, "sim", {"fast_forward", "measure_iterations", "remeasure_threshold", "horizon"});
  s.fast_forward = o.opt_boolean("fast_forward").value_or(s.fast_forward);
  s.measure_iterations = opt_int_in(o, "measure_iterations", 1).value_or(s.measure_iterations);
  s.remeasure_threshold = o.opt_number("remeasure_threshold", 0, 1).value_or(s.remeasure_threshold);
  s.horizon = opt_positive_seconds(o, "horizon").value_or(s.horizon);
  o.finish();
  return s;
}

TelemetryOptions read_telemetry(JsonObject& root) {
  TelemetryOptions t;
  if (!present(root, "telemetry")) return t;
  auto o = open_child(root, "telemetry", {"interval", "node_series", "job_series"});
  t.interval = opt_positive_seconds(o, "interval").value_or(t.interval);
  t.node_series = o.opt_boolean("node_series").value_or(t.node_series);
  t.job_series = o.opt_boolean("job_series");
  o.finish();
  return t;
}

}  // namespace tt::reader
