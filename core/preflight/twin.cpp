#include "core/preflight/twin.hpp"

#include <algorithm>

namespace tt::preflight {

std::vector<Inventory> node_inventories(const Topology& topo, const TwinPreflight& p) {
  std::vector<Inventory> out;
  if (!p.enabled()) return out;
  const Matrix& m = *p.matrix;
  for (std::size_t n = 0; n < topo.nodes().size(); ++n) {
    const Release& r = *m.find(p.node_release[n]);
    Inventory inv;
    inv.host = topo.nodes()[n].name;
    const GpuSpec& gpu = topo.gpu();
    inv.gpu = GpuInventory{gpu.name, topo.gpus_per_node(), gpu.memory, std::nullopt};
    if (gpu.compute_capability > 0)
      inv.gpu->compute_capability = Version::parse(std::to_string(gpu.compute_capability / 10) + "." +
                                                   std::to_string(gpu.compute_capability % 10));
    inv.driver = r.driver;
    inv.cuda_runtime = r.cuda_runtime;
    inv.nccl = NcclInventory{r.nccl, r.cuda_runtime};
    inv.attention = r.attention;
    inv.framework = r.framework;
    inv.os_release = "as the release";
    inv.kernel = "as the release";
    inv.kernel_params = m.node.kernel_params;
    inv.nofile = m.node.nofile.value_or(Limit{true, 0});
    inv.memlock = m.node.memlock.value_or(Limit{true, 0});
    inv.dev_shm = m.node.dev_shm.value_or(Bytes(0));
    inv.clock = {m.node.clock_synced, m.node.clock_max_error};
    if (auto it = p.node_settings.find(static_cast<int>(n)); it != p.node_settings.end()) {
      const NodeOverrides& o = it->second;
      for (const auto& [name, value] : o.kernel_params) inv.kernel_params[name] = value;
      if (o.nofile) inv.nofile = *o.nofile;
      if (o.memlock) inv.memlock = *o.memlock;
      if (o.dev_shm) inv.dev_shm = *o.dev_shm;
      if (o.clock_synced) inv.clock.synced = *o.clock_synced;
      if (o.clock_max_error) inv.clock.max_error = *o.clock_max_error;
    }
    out.push_back(std::move(inv));
  }
  return out;
}

Verdict judge_nodes(const Topology& topo, const TwinPreflight& p) {
  return judge_fleet(node_inventories(topo, p), &*p.matrix);
}

std::map<int, std::string> blocked_nodes(const Topology& topo, const TwinPreflight& p) {
  std::map<int, std::string> out;
  if (!p.enabled()) return out;
  std::map<std::string, int> index;
  for (std::size_t n = 0; n < topo.nodes().size(); ++n) index[topo.nodes()[n].name] = static_cast<int>(n);
  for (const auto& d : judge_nodes(topo, p).differences) {
    if (d.severity != Severity::Blocking) continue;
    for (const auto& h : d.hosts) {
      std::string& reason = out[index.at(h)];
      reason += (reason.empty() ? "preflight: " : "; ") + d.check + " " + d.found + ", expected " + d.expected;
    }
  }
  return out;
}

std::vector<int> attention_fallback_nodes(const Topology& topo, const TwinPreflight& p) {
  std::vector<int> out;
  const auto inventories = node_inventories(topo, p);
  if (topo.gpu().compute_capability == 0) return out;  // an unknown architecture is not a fallback
  for (std::size_t n = 0; n < inventories.size(); ++n)
    for (const auto& v : check_node(inventories[n]))
      if (v.rule == std::string("attention-requirements")) {
        out.push_back(static_cast<int>(n));
        break;
      }
  return out;
}

std::vector<SocketLimit> socket_limits(const Topology& topo, const TwinPreflight& p) {
  std::vector<SocketLimit> out;
  const int nodes = static_cast<int>(topo.nodes().size());
  if (!p.enabled() || p.transport != NetTransport::Socket || nodes < 2) return out;
  const auto inventories = node_inventories(topo, p);
  for (int n = 0; n < nodes; ++n) {
    const auto& params = inventories[static_cast<std::size_t>(n)].kernel_params;
    std::optional<std::int64_t> buffer;
    for (const char* name : {"net.core.rmem_max", "net.core.wmem_max"})
      if (auto it = params.find(name); it != params.end()) buffer = buffer ? std::min(*buffer, it->second) : it->second;
    if (!buffer) continue;
    const Path path = topo.path(topo.gpu_vertex(n, 0), topo.gpu_vertex((n + 1) % nodes, 0));
    BytesPerSecond nic;
    for (const Hop& h : path)
      if (topo.graph()[h.edge].kind == LinkKind::Nic) {
        nic = topo.graph()[h.edge].bandwidth;
        break;
      }
    const Seconds rtt = p.socket_rtt.value_or(Seconds(2 * topo.latency(path).value));
    if (nic.value <= 0 || rtt.value <= 0) continue;
    const double carried = p.socket_streams * p.socket_window_share * static_cast<double>(*buffer) / rtt.value;
    const double efficiency = carried / nic.value;
    if (efficiency >= 1) continue;
    out.push_back({n, Bytes(static_cast<double>(*buffer)), rtt, nic, efficiency});
  }
  return out;
}

std::optional<std::string> setup_hang(const TwinPreflight& p, const Topology& topo, const std::vector<int>& nodes) {
  if (!p.enabled() || nodes.empty()) return std::nullopt;
  const Matrix& m = *p.matrix;
  const Version& first = m.find(p.node_release[nodes.front()])->nccl;
  for (int n : nodes) {
    const Version& v = m.find(p.node_release[n])->nccl;
    if (v == first) continue;
    return "NCCL " + first.text() + " on " + topo.nodes()[nodes.front()].name + " and " + v.text() + " on " +
           topo.nodes()[n].name + ": " + rule("nccl-same-version").id + ", communicator setup hangs";
  }
  return std::nullopt;
}

}  // namespace tt::preflight
