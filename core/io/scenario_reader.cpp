#include "core/io/scenario_reader.hpp"

#include <algorithm>
#include <filesystem>

#include "core/fault/catalogue.hpp"
#include "core/fault/fault_kind.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/reader_support.hpp"
#include "core/io/secrets_reader.hpp"
#include "core/io/rollout_reader.hpp"
#include "core/io/section_readers.hpp"
#include "core/io/workload_reader.hpp"
#include "core/plan/nccl_settings.hpp"
#include "core/sched/quota.hpp"

namespace tt {
namespace {

using Json = nlohmann::json;
using reader::FaultSource;
using reader::in_quotes;
using reader::JobSource;
using reader::list_names;
using reader::suggestion;

Topology read_scenario_topology(JsonObject& root) {
  const Json& v = root.raw("topology");
  std::string ptr = root.child_pointer("topology");
  if (v.is_object()) return read_topology(v, root.file(), ptr);
  if (!v.is_string() || v.get<std::string>().empty())
    root.fail("topology", "a topology file path (relative to the scenario file) or an inline topology object, found " +
                              (v.is_string() ? std::string("an empty string") : std::string(v.type_name())));
  namespace fs = std::filesystem;
  fs::path path = fs::path(root.file()).parent_path() / v.get<std::string>();
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    root.fail("topology", "a topology file path relative to the scenario file's directory; " + path.string() +
                              " does not exist or is not a file");
  return read_topology_file(path.string());
}

void check_against_topology(JsonObject& root, const Scenario& s, const std::vector<JobSource>& job_sources,
                            const std::vector<FaultSource>& fault_sources) {
  const Topology& t = s.topology;
  const int per_node = t.gpus_per_node();
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    const auto& j = s.jobs[i];
    const std::string& ptr = job_sources[i].pointer;
    // Tensor parallelism stays inside a node (an NVLink domain: 8 GPUs of an HGX server, 72 of an NVL72 rack). A job
    // inside one node may use any degree up to its size (tp divides gpus already); on whole nodes, tp must divide a
    // node's GPUs so that no tensor-parallel group straddles two nodes.
    if (j.parallel.tp > per_node || (j.gpus > per_node && per_node % j.parallel.tp != 0))
      throw InputError(root.file(), ptr + "/parallel/tp",
                       "a tensor-parallel degree of at most the " + std::to_string(per_node) +
                           " GPUs of a node (an NVLink domain), dividing them for a job on several nodes (tensor " +
                           "parallelism stays inside a node), found " + std::to_string(j.parallel.tp));
    if (j.gpus > per_node && j.gpus % per_node != 0)
      throw InputError(root.file(), ptr + "/gpus",
                       "a job inside one node (at most " + std::to_string(per_node) + " GPUs) or on whole nodes (a " +
                           "multiple of " + std::to_string(per_node) + "), found " + std::to_string(j.gpus));
    if (j.gpus > t.total_gpus())
      throw InputError(root.file(), ptr + "/gpus",
                       "at most the cluster's " + std::to_string(t.total_gpus()) + " GPUs (" +
                           std::to_string(t.nodes().size()) + " nodes x " + std::to_string(per_node) + "), found " +
                           std::to_string(j.gpus));
    if (!j.site.empty()) {
      std::vector<std::string> sites;
      for (const auto& site : t.sites()) sites.push_back(site.name);
      if (std::find(sites.begin(), sites.end(), j.site) == sites.end())
        throw InputError(root.file(), ptr + "/site",
                         (sites.empty() ? std::string("no \"site\": the topology has one site")
                                        : "one of the topology's sites (" + list_names(sites) + ")") +
                             "; " + in_quotes(j.site) + " is not one" + suggestion(j.site, sites));
    }
    const auto& tc = j.topology;
    if (tc.max_leaf_groups > 0 && tc.required && !tc.max_wait && j.gpus > per_node) {
      std::vector<long long> sizes(t.groups(), 0);
      for (const auto& n : t.nodes()) ++sizes[n.group];
      std::sort(sizes.rbegin(), sizes.rend());
      long long nodes = 0;
      for (int g = 0; g < tc.max_leaf_groups && g < static_cast<int>(sizes.size()); ++g) nodes += sizes[g];
      if (nodes * per_node < j.gpus)
        throw InputError(root.file(), ptr + "/topology/max_leaf_groups",
                         "enough leaf groups for the job's " + std::to_string(j.gpus) + " GPUs (the largest " +
                             std::to_string(tc.max_leaf_groups) + " group(s) hold " + std::to_string(nodes * per_node) +
                             "; a required constraint without max_wait would never be met), found " +
                             std::to_string(tc.max_leaf_groups));
    }
  }
  for (std::size_t i = 0; i < s.faults.size(); ++i) {
    const auto& f = s.faults[i];
    const auto& src = fault_sources[i];
    std::vector<std::string> names = fault_candidates(f.kind, t);
    if (f.kind == FaultKind::CheckpointCorrupt) {
      for (const auto& j : s.jobs) names.push_back(j.name);
      if (std::find(names.begin(), names.end(), f.target) != names.end()) continue;
      throw InputError(root.file(), src.pointer + "/job",
                       "the name of a job of the scenario (" + list_names(names) + "); " + in_quotes(f.target) +
                           " is not one" + suggestion(f.target, names));
    }
    if (f.kind == FaultKind::StorageSlow && names.empty())
      throw InputError(root.file(), src.pointer + "/kind", "a topology with a storage target for a storage_slow fault");
    if (f.kind == FaultKind::StorageSlow && f.target.empty()) continue;
    if (f.kind == FaultKind::LinkDown) {  // any cable may flap, not only the stochastic candidates
      names.clear();
      for (std::size_t e = 0; e < t.edges().size(); ++e) names.push_back(t.link(static_cast<int>(e)).name);
    }
    if (std::find(names.begin(), names.end(), f.target) != names.end()) continue;
    throw InputError(root.file(), src.pointer + "/" + src.target_key,
                     "the name of a " + std::string(to_string(component_of(f.kind))) + " of the topology" +
                         (f.kind == FaultKind::NicDown ? " with a NIC" : "") + " (" + list_names(names) + "); " +
                         in_quotes(f.target) + " is not one" + suggestion(f.target, names));
  }
}

}  // namespace

Scenario read_scenario(const nlohmann::json& doc, const std::string& file) {
  auto root = reader::open(
      doc, file, "",
      {"name", "description", "seed", "topology", "queues", "priority_classes", "scheduler", "jobs", "faults",
       "stochastic", "recovery", "perf", "comm", "sim", "telemetry", "alerts", "checks", "workload", "preflight",
       "secrets", "rollout", "noise", "cost",
       "pools"});
  Scenario s;
  s.source_file = file;
  s.name = root.str("name");
  s.description = root.opt_str("description").value_or("");
  s.seed = static_cast<std::uint64_t>(root.opt_integer("seed", 0).value_or(1));
  // Everything that does not depend on the cluster is read first; the topology comes last because reading it may
  // open another file, and the checks against it need the jobs and faults.
  s.queues = reader::read_queues(root);
  s.priority_classes = reader::read_priority_classes(root);
  s.scheduler = reader::read_scheduler(root);
  std::vector<JobSource> job_sources;
  s.jobs = reader::read_jobs(root, s.queues, s.priority_classes, job_sources);
  if (!root.has("jobs")) root.opt_str("jobs");
  const std::optional<WorkloadSection> workload = read_workload(root, s.queues, s.priority_classes);
  std::vector<FaultSource> fault_sources;
  s.faults = reader::read_faults(root, fault_sources);
  s.stochastic = reader::read_stochastic(root);
  std::optional<Seconds> comm_timeout;
  s.recovery = reader::read_recovery(root, comm_timeout);
  s.perf = reader::read_perf(root);
  s.perf.comm = reader::read_comm(root);
  if (!comm_timeout) {  // the timeout NCCL's IB settings imply (the comm section, else NCCL's defaults)
    CommConstants k;
    s.recovery.comm_timeout = ib_comm_timeout(s.perf.comm.ib_timeout.value_or(k.ib_timeout),
                                              s.perf.comm.ib_retry_cnt.value_or(k.ib_retry_cnt));
  }
  s.sim = reader::read_sim(root);
  s.telemetry = reader::read_telemetry(root);
  s.alerts = reader::read_alerts(root);
  s.checks = reader::read_checks(root, s.jobs, s.alerts, s.queues);
  s.topology = read_scenario_topology(root);
  s.preflight = reader::read_preflight(root, s.topology);
  s.cost = reader::read_cost(root, s.topology);
  s.pools = reader::read_pools(root, s.topology);
  const bool scaled = std::any_of(s.pools.begin(), s.pools.end(), [](const PoolSpec& p) { return p.kind != PoolKind::Fixed; });
  if (scaled && s.recovery.hot_spares > 0)
    root.fail("pools", "no elastic or spot pool with recovery.hot_spares (spares are held back from fixed capacity)");
  if (scaled && root.has("rollout"))
    root.fail("pools", "no elastic or spot pool with a rollout (a rollout reimages a fixed fleet)");
  read_secrets(root, s.jobs);  // checked here, so every command refuses a bad section; only `real` needs them
  reader::read_rollout(root, s);  // appends the canary and baseline copies
  job_sources.resize(s.jobs.size(), JobSource{"/rollout/canary"});
  root.finish();
  check_against_topology(root, s, job_sources, fault_sources);
  if (workload) {
    const CohortQuota quota(s.queues);
    std::vector<int> capacity;
    for (std::size_t q = 0; q < s.queues.size(); ++q) capacity.push_back(quota.max_usable(static_cast<int>(q)));
    expand_workload(*workload, s, capacity);
  }
  for (auto& f : s.faults)
    if (f.kind == FaultKind::StorageSlow && f.target.empty()) f.target = s.topology.graph()[s.topology.storage()].name;
  if (!s.stochastic.catalogue.empty()) {
    auto rates = catalogue_rates(*find_catalogue(s.stochastic.catalogue), s.topology, s.stochastic.scale);
    s.stochastic.rates.insert(s.stochastic.rates.begin(), rates.begin(), rates.end());
  }
  return s;
}

Scenario read_scenario_file(const std::string& path) { return read_scenario(load_json_file(path), path); }

Scenario read_scenario_file(const std::string& path, std::uint64_t seed) {
  nlohmann::json doc = load_json_file(path);
  doc["seed"] = seed;
  return read_scenario(doc, path);
}

}  // namespace tt
