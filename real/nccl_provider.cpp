#include "real/nccl_provider.hpp"

#include <fstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/plan/comm_constants.hpp"
#include "core/plan/nccl_settings.hpp"
#include "real/nccl_collective.hpp"

namespace tt::real {

void prepare_provider(const std::string& provider, const std::filesystem::path& attempt_dir, const Scenario& scenario,
                      const Launch& launch) {
  if (provider == "gloo") return;
  if (provider != "nccl") throw std::invalid_argument("unknown collective provider \"" + provider + "\"");
  const Topology& topo = scenario.topology;
  const std::filesystem::path topo_file = attempt_dir / "nccl-topo.xml";
  {
    std::ofstream xml(topo_file);
    xml << nccl_topo_xml(topo, launch.gpus.at(0) / topo.gpus_per_node());
    if (!xml) throw std::runtime_error("cannot write " + topo_file.string());
  }
  const CommConstants k = comm_constants(topo.gpu(), scenario.perf.comm);
  std::ofstream env(attempt_dir / "nccl-env");
  for (const auto& [name, value] : nccl_env(topo, launch.gpus, launch.plan.steps, k, topo_file.string()))
    env << name << "=" << value << "\n";
  if (!env) throw std::runtime_error("cannot write " + (attempt_dir / "nccl-env").string());
  write_nccl_unique_id(attempt_dir / "nccl-id", nccl_new_unique_id());
}

std::unique_ptr<GradientAllReduce> connect_provider(const std::string& provider,
                                                    const std::filesystem::path& attempt_dir, int rank, int world,
                                                    int device, std::chrono::milliseconds timeout) {
  if (provider == "gloo") return connect_gloo(attempt_dir / "gloo-store", rank, world, timeout);
  if (provider != "nccl") throw std::invalid_argument("unknown collective provider \"" + provider + "\"");
  std::vector<std::pair<std::string, std::string>> env;
  std::ifstream in(attempt_dir / "nccl-env");
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) env.emplace_back(line.substr(0, eq), line.substr(eq + 1));
  }
  apply_nccl_env(env);
  return connect_nccl(read_nccl_unique_id(attempt_dir / "nccl-id", timeout), rank, world, device, timeout);
}

}  // namespace tt::real
