#include "core/plan/nccl_settings.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

namespace tt {

Seconds ib_comm_timeout(int ib_timeout, int ib_retry_cnt) {
  return Seconds(4.096e-6 * std::ldexp(1.0, ib_timeout) * (1 + ib_retry_cnt));
}

std::string nic_name(int local_gpu) { return "mlx5_" + std::to_string(local_gpu); }

namespace {

const char* nccl_algo_name(Algorithm a) {
  switch (a) {
    case Algorithm::Ring:
    case Algorithm::Hierarchical: return "Ring";
    case Algorithm::Tree: return "Tree";
    case Algorithm::Nvls: return "NVLS";
    case Algorithm::NvlsTree: return "NVLSTree";
    case Algorithm::P2p: return nullptr;
  }
  return nullptr;
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

// Ring channels of a planned ring group: the transfers leaving its first member.
int ring_channels_of(const CommGroup& g) {
  if (g.algorithm != Algorithm::Ring) return 1;
  int count = 0;
  for (const Transfer& t : g.phases[0]) count += t.from == g.gpus[0];
  return std::max(1, count);
}

std::string busid(int bus) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0000:%02x:00.0", bus & 0xff);
  return buf;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> nccl_env(const Topology& topo, const std::vector<int>& gpus,
                                                          const std::vector<CommStep>& steps, const CommConstants& k,
                                                          const std::string& topo_file) {
  std::vector<std::string> algos, protos;
  int min_ctas = 1;
  for (const CommStep& s : steps)
    for (const CommGroup& g : s.groups) {
      if (moves_nothing(g)) continue;
      require_planned(g);
      if (const char* a = nccl_algo_name(g.algorithm))
        if (std::find(algos.begin(), algos.end(), a) == algos.end()) algos.push_back(a);
      std::string p = to_string(g.protocol);
      if (g.algorithm != Algorithm::P2p && std::find(protos.begin(), protos.end(), p) == protos.end())
        protos.push_back(p);
      min_ctas = std::max(min_ctas, ring_channels_of(g));
    }
  auto order = [](std::vector<std::string>& v, std::vector<std::string> canonical) {
    std::vector<std::string> out;
    for (const auto& c : canonical)
      if (std::find(v.begin(), v.end(), c) != v.end()) out.push_back(c);
    v = out;
  };
  order(algos, {"Tree", "Ring", "NVLS"});
  order(protos, {"LL", "LL128", "Simple"});

  std::set<int> locals;
  for (int g : gpus) locals.insert(g % topo.gpus_per_node());
  std::vector<std::string> hcas;
  for (int l : locals) hcas.push_back(nic_name(l) + ":1");

  std::vector<std::pair<std::string, std::string>> env;
  if (!algos.empty()) env.emplace_back("NCCL_ALGO", join(algos, ","));
  if (!protos.empty()) env.emplace_back("NCCL_PROTO", join(protos, ","));
  env.emplace_back("NCCL_MIN_CTAS", std::to_string(std::min(min_ctas, k.channels)));
  env.emplace_back("NCCL_MAX_CTAS", std::to_string(k.channels));
  env.emplace_back("NCCL_IB_HCA", "=" + join(hcas, ","));
  env.emplace_back("NCCL_SOCKET_IFNAME", k.socket_ifname);
  env.emplace_back("NCCL_IB_TIMEOUT", std::to_string(k.ib_timeout));
  env.emplace_back("NCCL_IB_RETRY_CNT", std::to_string(k.ib_retry_cnt));
  if (!topo_file.empty()) env.emplace_back("NCCL_TOPO_FILE", topo_file);
  return env;
}

std::string nccl_topo_xml(const Topology& topo, int node) {
  const auto& g = topo.graph();
  const NodeInfo& info = topo.nodes().at(node);
  const int n = topo.gpus_per_node();
  const GpuSpec& gpu = topo.gpu();
  const double per_link = gpu.compute_capability >= 100 ? 50e9 : 25e9;  // NVLink5 / NVLink3-4, per direction
  const int nvlinks = std::max(1, static_cast<int>(std::lround(gpu.nvlink.value / per_link)));
  const std::string nvswitch_bus = busid(0xf0);
  std::ostringstream x;
  x << "<system version=\"1\">\n";
  const int cpus = n >= 2 ? 2 : 1;
  for (int cpu = 0; cpu < cpus; ++cpu) {
    x << "  <cpu numaid=\"" << cpu << "\" arch=\"x86_64\" vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"143\">\n";
    for (int i = cpu * n / cpus; i < (cpu + 1) * n / cpus; ++i) {
      const int bus = 0x10 + 0x08 * i;
      x << "    <pci busid=\"" << busid(bus)
        << "\" class=\"0x060400\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n";
      x << "      <pci busid=\"" << busid(bus + 1)
        << "\" class=\"0x030200\" vendor=\"0x10de\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n";
      x << "        <gpu dev=\"" << i << "\" sm=\"" << gpu.compute_capability << "\" rank=\"" << node * n + i
        << "\" gdr=\"1\">\n";
      x << "          <nvlink target=\"" << nvswitch_bus << "\" count=\"" << nvlinks << "\" tclass=\"0x068000\"/>\n";
      x << "        </gpu>\n      </pci>\n";
      BytesPerSecond nic;
      for (auto [it, end] = boost::out_edges(info.gpus[i], g); it != end; ++it)
        if (g[*it].kind == LinkKind::Nic) nic = std::max(nic, g[*it].bandwidth);
      if (nic.value > 0) {
        x << "      <pci busid=\"" << busid(bus + 2)
          << "\" class=\"0x020700\" vendor=\"0x15b3\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n";
        x << "        <nic>\n          <net name=\"" << nic_name(i) << "\" dev=\"" << i << "\" speed=\""
          << std::llround(nic.value * 8 / 1e6) << "\" port=\"1\" latency=\"0.000000\" maxconn=\"131072\" gdr=\"1\"/>\n";
        x << "        </nic>\n      </pci>\n";
      }
      x << "    </pci>\n";
    }
    x << "  </cpu>\n";
  }
  x << "</system>\n";
  return x.str();
}

}  // namespace tt
