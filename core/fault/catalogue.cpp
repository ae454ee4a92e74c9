#include "core/fault/catalogue.hpp"

#include "core/fault/fault_kind.hpp"

namespace tt {

namespace {

RepairDistribution lognormal(double median_h, double sigma) {
  return {RepairDistribution::Shape::Lognormal, Seconds(median_h * 3600), sigma};
}

const std::vector<Catalogue>& catalogues() {
  static const std::vector<Catalogue> all = [] {
    Catalogue l;
    l.name = "llama3-h100";
    l.source = "Dubey et al. 2024, The Llama 3 Herd of Models (arXiv:2407.21783), table 5";
    l.gpus = 16384;
    l.gpus_per_node = 8;
    l.observed = Seconds(54 * 86400.0);
    const auto gpu = FaultKind::GpuFailure, node = FaultKind::NodeCrash, hang = FaultKind::Deadlock;
    l.causes = {
        {"Faulty GPU", 148, gpu, lognormal(4, 1.0)},
        {"GPU HBM3 memory", 72, gpu, lognormal(4, 1.0)},
        {"Software bug", 54, hang, lognormal(0.5, 1.0)},
        {"Network switch/cable", 35, FaultKind::LinkDown, lognormal(1, 1.5)},
        {"Host maintenance", 32, node, lognormal(2, 1.0)},
        {"GPU SRAM memory", 19, gpu, lognormal(4, 1.0)},
        {"GPU system processor", 17, gpu, lognormal(4, 1.0)},
        {"NIC", 7, FaultKind::NicDown, lognormal(2, 1.0)},
        {"NCCL watchdog timeouts", 7, hang, lognormal(0.5, 1.0)},
        {"Silent data corruption", 6, gpu, lognormal(8, 1.0)},
        {"GPU thermal interface and sensor", 6, gpu, lognormal(8, 1.0)},
        {"SSD", 3, node, lognormal(8, 1.0)},
        {"Power supply", 3, node, lognormal(8, 1.0)},
        {"Server chassis", 2, node, lognormal(8, 1.0)},
        {"IO expansion board", 2, node, lognormal(8, 1.0)},
        {"Dependency", 2, hang, lognormal(0.5, 1.0)},
        {"CPU", 2, node, lognormal(8, 1.0)},
        {"System memory", 2, node, lognormal(8, 1.0)},
    };
    return std::vector<Catalogue>{l};
  }();
  return all;
}

}  // namespace

const Catalogue* find_catalogue(const std::string& name) {
  for (const auto& c : catalogues())
    if (c.name == name) return &c;
  return nullptr;
}

std::vector<std::string> catalogue_names() {
  std::vector<std::string> out;
  for (const auto& c : catalogues()) out.push_back(c.name);
  return out;
}

std::vector<FaultRate> catalogue_rates(const Catalogue& c, const Topology& topo, double scale) {
  std::vector<FaultRate> out;
  for (const auto& cause : c.causes) {
    const double components = static_cast<double>(fault_candidates(cause.kind, topo).size());
    if (components == 0) continue;
    const double per_gpu_per_s = cause.count / (c.gpus * c.observed.value);
    const double cluster_rate = per_gpu_per_s * topo.total_gpus() * scale;
    FaultRate r;
    r.kind = cause.kind;
    r.mtbf = Seconds(components / cluster_rate);
    r.repair = cause.repair;
    r.cause = cause.cause;
    out.push_back(r);
  }
  return out;
}

}  // namespace tt
