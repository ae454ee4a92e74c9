#include "core/io/rollout_reader.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/io/reader_support.hpp"

namespace tt::reader {
namespace {

using rollout::AnalysisMetric;
using rollout::Metric;
using rollout::Test;

std::vector<std::string> release_names(const preflight::Matrix& m) {
  std::vector<std::string> out;
  for (const auto& r : m.releases) out.push_back(r.name);
  return out;
}

std::string known_release(JsonObject& o, const std::string& key, const std::string& value,
                          const preflight::Matrix& m) {
  if (!m.find(value)) {
    const auto names = release_names(m);
    o.fail(key, "the name of a release of the preflight matrix (" + list_names(names) + "), found " +
                    in_quotes(value) + suggestion(value, names));
  }
  return value;
}

std::vector<rollout::ReleaseEffects> read_effects(JsonObject& o, const preflight::Matrix& m) {
  std::vector<rollout::ReleaseEffects> out;
  if (!present(o, "releases")) return out;
  const auto& v = o.raw("releases");
  JsonObject rels(v, o.file(), o.child_pointer("releases"));
  for (auto it = v.begin(); it != v.end(); ++it) {
    rollout::ReleaseEffects e;
    e.release = it.key();
    if (!m.find(e.release)) {
      const auto names = release_names(m);
      rels.fail(e.release, "releases named after releases of the preflight matrix (" + list_names(names) + "); " +
                               in_quotes(e.release) + " is not one" + suggestion(e.release, names));
    }
    auto r = open_child(rels, e.release,
                        {"compute_speed", "comm_speed", "hang_per_collective", "failure_rate", "failure_repair",
                         "shares_jobs_with"});
    e.compute_speed = r.opt_number("compute_speed", 0.01, 10).value_or(1.0);
    e.comm_speed = r.opt_number("comm_speed", 0.01, 10).value_or(1.0);
    e.hang_per_collective = r.opt_number("hang_per_collective", 0, 1).value_or(0.0);
    e.failure_rate = r.opt_number("failure_rate", 0, 1000).value_or(0.0);
    e.failure_repair = opt_positive_seconds(r, "failure_repair").value_or(e.failure_repair);
    if (present(r, "shares_jobs_with")) {
      for (const auto& [elem, ptr] : r.array("shares_jobs_with", true)) {
        if (!elem->is_string() || !m.find(elem->get<std::string>()))
          throw InputError(r.file(), ptr,
                           "the name of a release of the preflight matrix (" + list_names(release_names(m)) +
                               "), found " + str_of(*elem));
        e.shares_jobs_with.push_back(elem->get<std::string>());
      }
    }
    r.finish();
    out.push_back(std::move(e));
  }
  rels.finish();
  return out;
}

std::vector<int> read_pool(JsonObject& o, const Topology& topo) {
  const int nodes = static_cast<int>(topo.nodes().size());
  std::vector<int> pool;
  if (!present(o, "pool")) {
    for (int n = 0; n < nodes; ++n) pool.push_back(n);
    return pool;
  }
  const auto& v = o.raw("pool");
  if (v.is_number_integer()) {
    const auto count = v.get<std::int64_t>();
    if (count < 2 || count > nodes)
      o.fail("pool", "a node count between 2 and the cluster's " + std::to_string(nodes) + " nodes, or a list of " +
                         "node names; found " + str_of(v));
    for (int n = 0; n < count; ++n) pool.push_back(n);
    return pool;
  }
  std::map<std::string, int> index;
  std::vector<std::string> names;
  for (int n = 0; n < nodes; ++n) {
    index[topo.nodes()[n].name] = n;
    names.push_back(topo.nodes()[n].name);
  }
  if (!v.is_array()) o.fail("pool", "a node count or a list of node names, found " + str_of(v));
  for (const auto& [elem, ptr] : o.array("pool")) {
    const std::string name = elem->is_string() ? elem->get<std::string>() : str_of(*elem);
    auto it = index.find(name);
    if (!elem->is_string() || it == index.end())
      throw InputError(o.file(), ptr, "the name of a node of the topology (" + list_names(names) + "); " +
                                          in_quotes(name) + " is not one" + suggestion(name, names));
    if (std::find(pool.begin(), pool.end(), it->second) != pool.end())
      throw InputError(o.file(), ptr, "each node once; " + in_quotes(name) + " is listed twice");
    pool.push_back(it->second);
  }
  if (pool.size() < 2) o.fail("pool", "at least 2 nodes (a canary and its baseline)");
  return pool;
}

std::vector<AnalysisMetric> read_metrics(JsonObject& o) {
  std::vector<std::string> names;
  for (Metric m : rollout::kMetrics) names.push_back(rollout::to_string(m));
  std::vector<AnalysisMetric> out;
  for (const auto& [elem, ptr] : o.array("analysis")) {
    auto a = open(*elem, o.file(), ptr, {"metric", "test", "max_ratio", "max_extra", "confidence"});
    AnalysisMetric m;
    m.metric = rollout::kMetrics[choice(a, "metric", names, "analysis metric")];
    const std::vector<std::string> tests = {"threshold", "mann_whitney"};
    m.test = choice(a, "test", tests, "test") == 0 ? Test::Threshold : Test::MannWhitney;
    if (m.test == Test::MannWhitney && rollout::is_count(m.metric))
      a.fail("test", std::string("\"threshold\" for the count metric ") + rollout::to_string(m.metric) +
                         " (one total per side: no samples to rank)");
    if (m.test == Test::MannWhitney) {
      m.confidence = a.number("confidence", 0.5, 0.999999);
    } else if (rollout::is_count(m.metric)) {
      m.max_extra = a.number("max_extra", 0, 1e9);
    } else {
      m.max_ratio = a.number("max_ratio", 0, 10);
    }
    a.finish();
    out.push_back(m);
  }
  return out;
}

JobSpec copy_job(const JobSpec& base, const std::string& name, int gpus, Seconds start) {
  JobSpec j = base;
  j.name = name;
  j.gpus = gpus;
  const int per_replica = base.parallel.tp * base.parallel.pp;
  j.parallel.dp = gpus / per_replica;
  j.global_batch = std::max(j.parallel.dp, base.global_batch * j.parallel.dp / base.parallel.dp);
  j.iterations = 1'000'000'000;  // runs until the Controller stops it at the end of the rollout
  j.submit = start;
  j.estimated_runtime = Seconds(1e9);  // never queued: keeps the scheduler's estimates out of it
  j.topology = {};
  return j;
}

}  // namespace

void read_rollout(JsonObject& root, Scenario& s) {
  if (present(root, "noise")) {
    auto n = open_child(root, "noise", {"node_sd", "drift_sd", "jitter_sd", "interval"});
    s.rollout.noise.node_sd = n.opt_number("node_sd", 0, 0.5).value_or(0);
    s.rollout.noise.drift_sd = n.opt_number("drift_sd", 0, 0.5).value_or(0);
    s.rollout.noise.jitter_sd = n.opt_number("jitter_sd", 0, 0.5).value_or(0);
    s.rollout.noise.interval = opt_positive_seconds(n, "interval").value_or(s.rollout.noise.interval);
    n.finish();
  }
  if (!present(root, "rollout")) return;
  auto o = open_child(root, "rollout", {"release", "releases", "start", "pool", "steps", "window", "interval",
                                        "canary", "analysis", "on_failure", "drain", "reimage"});
  if (!s.preflight.enabled())
    o.fail_here("a preflight section with its matrix beside the rollout: the releases rolled out are the matrix's");
  const preflight::Matrix& m = *s.preflight.matrix;
  rollout::Plan p;
  p.release = known_release(o, "release", o.str("release"), m);
  p.from = m.current;
  if (p.release == p.from)
    o.fail("release", "a release other than the matrix's current one (" + in_quotes(p.from) + "), which the nodes run");
  s.rollout.effects = read_effects(o, m);
  p.start = o.seconds("start");
  const Topology& topo = s.topology;
  const int gpn = topo.gpus_per_node();
  p.pool = read_pool(o, topo);
  for (int n : p.pool)
    if (s.preflight.node_release[n] != p.from)
      o.fail("pool", "nodes on the current release " + in_quotes(p.from) + "; " + topo.nodes()[n].name + " runs " +
                         in_quotes(s.preflight.node_release[n]));
  const int pool = static_cast<int>(p.pool.size());

  // The canary first: the steps are checked against its size. Kind "copy" (the default): a scaled-down copy of a named
  // job beside a baseline copy; kind "any_job": every job that lands on upgraded nodes against the jobs on old ones.
  auto c = open_child(o, "canary", {"kind", "copy_of", "gpus"});
  const bool any_job = c.has("kind") && choice(c, "kind", {"copy", "any_job"}, "canary kind") == 1;
  const JobSpec* base = nullptr;
  if (any_job) {
    for (const std::string key : {"copy_of", "gpus"})
      if (c.has(key)) c.fail(key, "no " + key + " with kind \"any_job\" (the canary is every job on upgraded nodes)");
    if (!s.rollout.may_share(p.release, p.from))
      c.fail("kind", "\"copy\": with \"any_job\" the release must share jobs with " + in_quotes(p.from) +
                         " (releases.shares_jobs_with), or no job lands on an upgraded node before the full rollout");
  } else {
    p.canary.copy_of = c.str("copy_of");
    std::vector<std::string> job_names;
    for (const auto& j : s.jobs) job_names.push_back(j.name);
    auto it =
        std::find_if(s.jobs.begin(), s.jobs.end(), [&](const JobSpec& j) { return j.name == p.canary.copy_of; });
    if (it == s.jobs.end())
      c.fail("copy_of", "the name of a job of the scenario (" + list_names(job_names) + "); " +
                            in_quotes(p.canary.copy_of) + " is not one" + suggestion(p.canary.copy_of, job_names));
    base = &*it;
    p.canary.gpus = int_in(c, "gpus", 1);
    const int per_replica = base->parallel.tp * base->parallel.pp;
    if (p.canary.gpus % gpn != 0 || p.canary.gpus % per_replica != 0 || p.canary.gpus > base->gpus)
      c.fail("gpus", "whole nodes (a multiple of " + std::to_string(gpn) + " GPUs), whole replicas of " + base->name +
                         " (a multiple of tp x pp = " + std::to_string(per_replica) + ") and at most its " +
                         std::to_string(base->gpus) + " GPUs; found " + std::to_string(p.canary.gpus));
  }
  c.finish();
  const int canary_nodes = p.canary.gpus / gpn;  // any_job: 0 (no copy, no held baseline)
  if (2 * canary_nodes > pool)
    o.fail("canary", "a canary that fits twice in the pool of " + std::to_string(pool) +
                         " nodes (once on the new release, once as its baseline); it needs " +
                         std::to_string(canary_nodes) + " nodes");

  int last = 0;
  const auto steps = o.array("steps");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto& [elem, ptr] = steps[i];
    if (last == pool)
      throw InputError(o.file(), ptr, "no step after the full rollout (step " + std::to_string(i - 1) +
                                          " already covers all " + std::to_string(pool) + " nodes of the pool)");
    auto st = open(*elem, o.file(), ptr, {"nodes", "fraction"});
    rollout::Step step;
    if (st.has("nodes") == st.has("fraction")) st.fail_here("exactly one of \"nodes\" and \"fraction\"");
    if (st.has("nodes")) {
      const auto n = st.integer("nodes", 1);
      if (n > pool)
        st.fail("nodes", "at most the pool's " + std::to_string(pool) + " nodes (the cluster has " +
                             std::to_string(topo.nodes().size()) + "); found " + std::to_string(n));
      step.nodes = static_cast<int>(n);
    } else {
      step.nodes = static_cast<int>(std::ceil(st.number("fraction", 1e-9, 1.0) * pool - 1e-9));
    }
    st.finish();
    if (step.nodes <= last)
      throw InputError(o.file(), ptr, "more nodes than the step before (" + std::to_string(last) + "), found " +
                                          std::to_string(step.nodes));
    if (i == 0 && step.nodes < canary_nodes)
      throw InputError(o.file(), ptr, "a first step of at least the canary's " + std::to_string(canary_nodes) +
                                          " nodes, found " + std::to_string(step.nodes));
    if (step.nodes < pool && step.nodes + canary_nodes > pool)
      throw InputError(o.file(), ptr, "room for the baseline: at most " + std::to_string(pool - canary_nodes) +
                                          " nodes before the full rollout of " + std::to_string(pool) + ", found " +
                                          std::to_string(step.nodes));
    p.steps.push_back(step);
    last = step.nodes;
  }
  p.window = positive_seconds(o, "window");
  p.interval = positive_seconds(o, "interval");
  if (p.interval > p.window) o.fail("interval", "at most the window (" + format_seconds(p.window) + ")");
  p.metrics = read_metrics(o);
  p.on_failure = choice(o, "on_failure", {"rollback", "pause"}, "action") == 0 ? rollout::OnFailure::Rollback
                                                                               : rollout::OnFailure::Pause;
  p.drain = o.seconds("drain");
  p.reimage = positive_seconds(o, "reimage");
  o.finish();

  if (any_job) {  // job and baseline_job stay -1: no copies
    s.rollout.plan = std::move(p);
    return;
  }
  p.canary.job = static_cast<int>(s.jobs.size());
  p.canary.baseline_job = p.canary.job + 1;
  const JobSpec copy_base = *base;
  s.jobs.push_back(copy_job(copy_base, "canary/" + copy_base.name, p.canary.gpus, p.start));
  s.jobs.push_back(copy_job(copy_base, "baseline/" + copy_base.name, p.canary.gpus, p.start));
  s.rollout.plan = std::move(p);
}

}  // namespace tt::reader
