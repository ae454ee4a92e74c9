#include "core/preflight/verdict.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

namespace tt::preflight {
namespace {

constexpr double kUnlimited = std::numeric_limits<double>::infinity();

// A node's value of one attribute: its text for reports; a version or an amount where they compare as such.
struct Value {
  std::string text;
  std::optional<Version> version;
  double amount = 0;
};

Value absent() { return {"absent", std::nullopt, -1}; }
Value of_version(const std::optional<Version>& v) { return v ? Value{v->text(), v, 0} : absent(); }
Value of_library(const std::optional<Library>& l) {
  return l ? Value{l->name + " " + l->version.text(), std::nullopt, 0} : absent();
}
Value of_amount(double amount, std::string text) { return {std::move(text), std::nullopt, amount}; }
Value of_limit(const Limit& l, bool bytes) {
  if (l.unlimited) return of_amount(kUnlimited, "unlimited");
  return of_amount(double(l.value), bytes ? format_bytes(Bytes(double(l.value))) : std::to_string(l.value));
}

std::string subnet(const NetworkInventory& n) {
  if (n.address.find(':') != std::string::npos) return n.address + "/" + std::to_string(n.prefix);
  unsigned a[4] = {0, 0, 0, 0};
  if (std::sscanf(n.address.c_str(), "%u.%u.%u.%u", &a[0], &a[1], &a[2], &a[3]) != 4) return n.address;
  unsigned ip = (a[0] << 24) | (a[1] << 16) | (a[2] << 8) | a[3];
  unsigned mask = n.prefix == 0 ? 0 : ~0u << (32 - n.prefix);
  ip &= mask;
  return std::to_string(ip >> 24) + "." + std::to_string((ip >> 16) & 255) + "." + std::to_string((ip >> 8) & 255) +
         "." + std::to_string(ip & 255) + "/" + std::to_string(n.prefix);
}

std::map<std::string, Value> values_of(const Inventory& inv) {
  std::map<std::string, Value> v;
  v["gpu"] = inv.gpu ? Value{std::to_string(inv.gpu->count) + " x " + inv.gpu->model + " " +
                                 format_bytes(inv.gpu->memory),
                             std::nullopt, 0}
                     : absent();
  v["driver"] = of_version(inv.driver);
  v["cuda_runtime"] = of_version(inv.cuda_runtime);
  v["nccl"] = of_version(inv.nccl ? std::optional<Version>(inv.nccl->version) : std::nullopt);
  v["nccl_cuda"] = of_version(inv.nccl ? inv.nccl->cuda : std::nullopt);
  v["attention"] = of_library(inv.attention);
  v["framework"] = of_library(inv.framework);
  v["os_release"] = {inv.os_release, std::nullopt, 0};
  v["kernel"] = {inv.kernel, std::nullopt, 0};
  v["nofile"] = of_limit(inv.nofile, false);
  v["memlock"] = of_limit(inv.memlock, true);
  v["dev_shm"] = of_amount(inv.dev_shm.value, format_bytes(inv.dev_shm));
  v["clock_synced"] = {inv.clock.synced ? "synced" : "unsynchronised", std::nullopt, 0};
  v["clock_max_error"] = inv.clock.max_error ? of_amount(inv.clock.max_error->value, format_seconds(*inv.clock.max_error))
                                             : Value{"unknown", std::nullopt, kUnlimited};
  v["subnet"] = inv.network ? Value{subnet(*inv.network), std::nullopt, 0} : absent();
  v["port_range"] = inv.network ? Value{std::to_string(inv.network->port_low) + "-" +
                                            std::to_string(inv.network->port_high),
                                        std::nullopt, 0}
                                : absent();
  for (const auto& [name, value] : inv.kernel_params)
    v["kernel_params/" + name] = of_amount(double(value), std::to_string(value));
  return v;
}

// The values the matrix states; attributes it does not name keep the majority baseline.
std::map<std::string, Value> matrix_values(const Matrix& m) {
  const Release& r = m.current_release();
  std::map<std::string, Value> v;
  v["driver"] = of_version(r.driver);
  v["cuda_runtime"] = of_version(r.cuda_runtime);
  v["nccl"] = of_version(r.nccl);
  if (r.attention) v["attention"] = of_library(r.attention);
  if (r.framework) v["framework"] = of_library(r.framework);
  if (m.node.dev_shm) v["dev_shm"] = of_amount(m.node.dev_shm->value, format_bytes(*m.node.dev_shm));
  if (m.node.nofile) v["nofile"] = of_limit(*m.node.nofile, false);
  if (m.node.memlock) v["memlock"] = of_limit(*m.node.memlock, true);
  if (m.node.clock_max_error)
    v["clock_max_error"] = of_amount(m.node.clock_max_error->value, format_seconds(*m.node.clock_max_error));
  v["clock_synced"] = {m.node.clock_synced ? "synced" : "unsynchronised", std::nullopt, 0};
  for (const auto& [name, value] : m.node.kernel_params)
    v["kernel_params/" + name] = of_amount(double(value), std::to_string(value));
  return v;
}

bool same(const Value& a, const Value& b) {
  if (a.version && b.version) return *a.version == *b.version;
  return a.text == b.text;
}

bool differs(Compare c, const Value& node, const Value& base) {
  if (node.text == "absent" && base.text != "absent") return true;
  switch (c) {
    case Compare::Same: return !same(node, base);
    case Compare::AtLeast:
      if (node.version && base.version) return *node.version < *base.version;
      return node.amount < base.amount;
    case Compare::AtMost: return node.amount > base.amount;
  }
  return false;
}

// The most common value; a tie goes to the value first in text order, so the baseline does not depend on file order.
Value majority(const std::vector<const Value*>& values) {
  std::map<std::string, std::pair<int, const Value*>> counts;
  for (const Value* v : values) {
    auto& c = counts[v->text];
    ++c.first;
    c.second = v;
  }
  const Value* best = nullptr;
  int best_count = 0;
  for (const auto& [text, c] : counts)
    if (c.first > best_count) best = c.second, best_count = c.first;
  return *best;
}

std::string expected_text(Compare c, const Value& base) {
  switch (c) {
    case Compare::Same: return base.text;
    case Compare::AtLeast: return ">= " + base.text;
    case Compare::AtMost: return "<= " + base.text;
  }
  return base.text;
}

}  // namespace

const std::vector<Attribute>& attributes() {
  static const std::vector<Attribute> table = {
      {"gpu", Compare::Same, Severity::Warning, "",
       "a job spanning unlike GPUs runs at the pace of the slowest and must fit the smallest memory"},
      {"driver", Compare::Same, Severity::Warning, "",
       "a driver the release was not validated with (drivers are backward compatible, so this alone rarely fails)"},
      {"cuda_runtime", Compare::Same, Severity::Blocking, "",
       "ranks of one job run different CUDA runtimes: an unvalidated combination, kernels and libraries differ"},
      {"nccl", Compare::Same, Severity::Blocking, "nccl-same-version", ""},
      {"nccl_cuda", Compare::Same, Severity::Warning, "",
       "NCCL builds for different CUDA versions: an unvalidated combination"},
      {"attention", Compare::Same, Severity::Warning, "",
       "different attention kernels: numerics differ between ranks, and an older release may take a slower path"},
      {"framework", Compare::Same, Severity::Blocking, "",
       "ranks on different framework versions may bucket gradients and order collectives differently: mismatched "
       "collectives hang until the watchdog fires"},
      {"os_release", Compare::Same, Severity::Warning, "", "an OS release the fleet was not validated with"},
      {"kernel", Compare::Same, Severity::Warning, "", "a kernel the fleet was not validated with"},
      {"nofile", Compare::AtLeast, Severity::Warning, "",
       "data loaders and NCCL's socket connections fail with EMFILE (\"Too many open files\") at scale"},
      {"memlock", Compare::AtLeast, Severity::Blocking, "",
       "RDMA memory registration fails (ibv_reg_mr: \"Cannot allocate memory\"): NCCL's InfiniBand transport does "
       "not start"},
      {"dev_shm", Compare::AtLeast, Severity::Blocking, "",
       "NCCL's shared-memory transport and data-loader workers fail when /dev/shm fills (\"NCCL WARN Error while "
       "creating shared memory segment\", or SIGBUS): the job crashes at setup or mid-run"},
      {"clock_synced", Compare::Same, Severity::Blocking, "",
       "cross-node timestamps disagree: heartbeat and watchdog deadlines misfire, traces and logs lose their order"},
      {"clock_max_error", Compare::AtMost, Severity::Blocking, "",
       "clock error beyond what the release allows: cross-node deadlines and event order are unreliable"},
      {"subnet", Compare::Same, Severity::Warning, "",
       "a node on another subnet: bootstrap connections fail where no route exists (NCCL WARN socket connect)"},
      {"port_range", Compare::Same, Severity::Warning, "",
       "firewall rules opened for one port range block the communication library's bootstrap on the others"},
  };
  return table;
}

Attribute kernel_param_attribute(const std::string& sysctl) {
  const bool socket = sysctl == "net.core.rmem_max" || sysctl == "net.core.wmem_max" ||
                      sysctl == "net.ipv4.tcp_rmem" || sysctl == "net.ipv4.tcp_wmem";
  return {"kernel_params/" + sysctl, Compare::AtLeast, Severity::Warning, "",
          socket ? "smaller socket buffers cap the TCP window: lower network efficiency for socket transports and "
                   "bootstrap"
                 : "a kernel limit lower than the baseline's"};
}

bool Verdict::blocking() const { return count(Severity::Blocking) > 0; }

int Verdict::count(Severity s) const {
  return static_cast<int>(std::count_if(differences.begin(), differences.end(),
                                        [s](const Difference& d) { return d.severity == s; }));
}

Verdict judge_fleet(const std::vector<Inventory>& fleet, const Matrix* matrix) {
  Verdict v;
  v.nodes = fleet.size();
  if (fleet.empty()) return v;  // nothing to compare (readers never hand over an empty fleet)
  std::vector<std::map<std::string, Value>> values;
  std::set<std::string> params;
  for (const auto& inv : fleet) {
    values.push_back(values_of(inv));
    for (const auto& [k, _] : inv.kernel_params) params.insert(k);
  }
  const auto stated = matrix ? matrix_values(*matrix) : std::map<std::string, Value>{};
  if (matrix) for (const auto& [k, _] : matrix->node.kernel_params) params.insert(k);
  v.baseline = matrix ? "matrix " + matrix->source_file + ", release " + matrix->current + " (majority of " +
                            std::to_string(fleet.size()) + " nodes where it states nothing)"
                      : "majority of " + std::to_string(fleet.size()) + " nodes";

  std::vector<Attribute> attrs = attributes();
  for (const auto& p : params) attrs.push_back(kernel_param_attribute(p));
  std::map<std::string, std::vector<std::string>> fingerprints;
  std::vector<std::string> prints(fleet.size());
  for (const auto& a : attrs) {
    if (a.name == "clock_max_error" && !stated.count(a.name)) continue;  // only a matrix sets a bound
    v.checks.push_back(a.name);
    std::vector<const Value*> column;
    for (auto& nv : values) {
      if (!nv.count(a.name)) nv[a.name] = absent();
      column.push_back(&nv.at(a.name));
    }
    Value base = stated.count(a.name) ? stated.at(a.name)
                 : a.name == "clock_synced" ? Value{"synced", std::nullopt, 0}
                                            : majority(column);
    // The matrix's driver is a minimum: newer drivers run older runtimes; an older one is outside the release.
    Compare compare = a.compare;
    Severity severity = a.severity;
    if (a.name == "driver" && matrix) compare = Compare::AtLeast, severity = Severity::Blocking;
    std::map<std::string, Difference> by_found;
    for (std::size_t i = 0; i < fleet.size(); ++i) {
      prints[i] += column[i]->text + "\n";
      if (!differs(compare, *column[i], base)) continue;
      auto& d = by_found[column[i]->text];
      if (d.hosts.empty()) {
        d = {a.name, severity, a.rule, {}, column[i]->text, expected_text(compare, base),
             a.rule.empty() ? a.failure : rule(a.rule).failure};
      }
      d.hosts.push_back(fleet[i].host);
    }
    for (auto& [_, d] : by_found) v.differences.push_back(std::move(d));
  }
  for (const auto& r : rules()) {
    if (std::string(r.id) == "nccl-same-version") continue;  // the nccl attribute above is this rule
    v.checks.push_back(std::string("rule:") + r.id);
    std::map<std::pair<std::string, std::string>, Difference> by_found;
    for (const auto& inv : fleet)
      for (const auto& viol : check_node(inv)) {
        if (viol.rule != r.id) continue;
        auto& d = by_found[{viol.found, viol.expected}];
        if (d.hosts.empty()) d = {std::string("rule:") + r.id, r.severity, r.id, {}, viol.found, viol.expected,
                                  r.failure};
        d.hosts.push_back(inv.host);
      }
    for (auto& [_, d] : by_found) v.differences.push_back(std::move(d));
  }
  for (auto& d : v.differences) std::sort(d.hosts.begin(), d.hosts.end());
  std::stable_sort(v.differences.begin(), v.differences.end(), [](const Difference& a, const Difference& b) {
    return a.severity == Severity::Blocking && b.severity != Severity::Blocking;
  });
  for (std::size_t i = 0; i < fleet.size(); ++i) fingerprints[prints[i]].push_back(fleet[i].host);
  for (auto& [_, hosts] : fingerprints) {
    std::sort(hosts.begin(), hosts.end());
    v.groups.push_back(std::move(hosts));
  }
  std::sort(v.groups.begin(), v.groups.end(), [](const auto& a, const auto& b) {
    return a.size() != b.size() ? a.size() > b.size() : a.front() < b.front();
  });
  return v;
}

}  // namespace tt::preflight
