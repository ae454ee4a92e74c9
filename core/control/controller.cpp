#include "core/control/controller_impl.hpp"

#include <algorithm>
#include <cmath>
#include <deque>

#include <cassert>

#include "core/control/checks.hpp"
#include "core/plan/perf_model.hpp"

namespace tt {

bool RunRecord::all_checks_passed() const {
  return std::all_of(checks.begin(), checks.end(), [](const CheckResult& c) { return c.passed; });
}

std::vector<std::string> node_names(const Topology& topo, const std::vector<int>& gpus) {
  std::vector<std::string> names;
  int last = -1;
  for (int gpu : gpus) {
    int node = gpu / topo.gpus_per_node();
    if (node != last) names.push_back(topo.nodes()[node].name);
    last = node;
  }
  return names;
}

std::vector<SchedJob> sched_jobs(const Scenario& sc) {
  std::vector<SchedJob> out;
  for (const auto& spec : sc.jobs) {
    SchedJob j;
    for (std::size_t q = 0; q < sc.queues.size(); ++q)
      if (sc.queues[q].name == spec.queue) j.queue = static_cast<int>(q);
    j.priority = spec.priority;
    j.gpus = spec.gpus;
    j.topology = spec.topology;
    j.one_site = !spec.span_sites || !sc.scheduler.overflow;
    for (std::size_t s = 0; s < sc.topology.sites().size(); ++s)
      if (sc.topology.sites()[s].name == spec.site) j.site = static_cast<int>(s);
    if (!sc.scheduler.overflow) j.site = 0;
    out.push_back(j);
  }
  return out;
}

std::string plan_key(const JobSpec& j) {
  std::string k = j.model.name;
  auto put = [&k](auto v) { k.append(reinterpret_cast<const char*>(&v), sizeof v); };
  for (int v : {j.model.layers, j.model.hidden, j.model.heads, j.model.kv_heads, j.model.ffn_hidden, j.model.vocab,
                j.parallel.tp, j.parallel.pp, j.parallel.dp, j.gpus, j.global_batch, j.seq_len})
    put(v);
  put(j.model.gated_mlp);
  put(j.model.tied_embeddings);
  return k;
}

Controller::Impl::Impl(const Scenario& s, Planner p)
    : sc(s),
      topo(s.topology),
      planner(std::move(p)),
      cluster(s.topology),
      sched(s.queues, s.scheduler, sched_jobs(s)),
      telemetry(s, rec),
      rules(s.recovery),
      lemon(s.recovery.lemon_failures, s.recovery.lemon_window) {
  std::vector<SiteRange> sites;
  for (const SiteInfo& s : topo.sites()) sites.push_back({s.first_node, s.end_node, s.first_group, s.end_group});
  sched.set_sites(std::move(sites));
  const int nodes = static_cast<int>(topo.nodes().size());
  node_out.assign(nodes, 0);
  unprovisioned.assign(nodes, false);
  for (int n = 0; n < nodes; ++n)  // without overflow, the sites after the first are not provisioned
    if (!sc.scheduler.overflow && topo.nodes()[n].site > 0) {
      unprovisioned[n] = true;
      cluster.set_up(n, false);
    }
  spare.assign(nodes, false);
  drained.assign(nodes, false);
  node_failures.resize(nodes);
  for (int n = nodes - 1, k = 0; n >= 0 && k < sc.recovery.hot_spares; --n, ++k) {
    spare[n] = true;
    cluster.set_up(n, false);
  }
  gated.assign(nodes, false);
  held.assign(nodes, false);
  if (sc.rollout.enabled()) {
    ro.release = sc.preflight.node_release;
    rec.rollout = RolloutRecord{};
    rec.rollout->release = sc.rollout.plan->release;
    rec.rollout->from = sc.rollout.plan->from;
  }
  for (const auto& [n, reason] : preflight::blocked_nodes(topo, sc.preflight)) {
    const std::vector<std::string> node = {topo.nodes()[n].name};
    if (!sc.preflight.gate) {
      decide(Seconds(0), "ungated", "", node, reason + " (preflight.gate false: placed on anyway)");
      continue;
    }
    gated[n] = true;
    if (!spare[n]) cluster.set_up(n, false);
    decide(Seconds(0), "cordon", "", node, reason + " (preflight.gate)");
  }
  if (sc.recovery.hot_spares > 0 || std::count(gated.begin(), gated.end(), true) > 0) sched.capacity_changed();
  rec.detection = {{"heartbeat_s", sc.recovery.detection_timeout.value},
                   {"comm_timeout_s", sc.recovery.comm_timeout.value},
                   {"watchdog_s", sc.recovery.watchdog_timeout.value},
                   {"restart_overhead_s", sc.recovery.restart_overhead.value}};
  rec.scenario = sc.name;
  rec.scenario_file = sc.source_file;
  rec.seed = sc.seed;
  rec.total_gpus = topo.total_gpus();
  jobs.resize(sc.jobs.size());
  for (const auto& q : sc.queues) queue_names.push_back(q.name);
  for (std::size_t i = 0; i < sc.jobs.size(); ++i) {
    const JobSpec& spec = sc.jobs[i];
    JobRecord jr;
    jr.name = spec.name;
    jr.queue = spec.queue;
    jr.gpus = spec.gpus;
    jr.priority = spec.priority;
    jr.submit = spec.submit;
    jr.iterations_target = spec.iterations;
    rec.jobs.push_back(std::move(jr));
    job_names.push_back(spec.name);
    if (!rollout_copy(static_cast<int>(i))) submit_order.push_back(static_cast<int>(i));  // the rollout starts copies
  }
  std::stable_sort(submit_order.begin(), submit_order.end(),
                   [&](int a, int b) { return sc.jobs[a].submit < sc.jobs[b].submit; });
  pools_init();
  sample(Seconds(0));
  telemetry.refresh(Seconds(0), cluster_view(), [this](int j) { return job_view(j); });
}

void Controller::Impl::set_state(int j, JobState to) {
  JobState& from = jobs[j].state;
  auto counts = [&](JobState s, int d) {
    if (s == JobState::Running || s == JobState::Stalled) running += d;
    if (s == JobState::Pending) pending += d;
    if (s == JobState::Completed || s == JobState::Abandoned) ended += d;
  };
  counts(from, -1);
  counts(to, +1);
  gpus_busy += ((to == JobState::Running) - (from == JobState::Running)) * sc.jobs[j].gpus;
  from = to;
  telemetry.touch(j);
  if (to == JobState::Pending) rec.jobs[j].state = JobStatus::Pending;
  if (to == JobState::Running || to == JobState::Stalled) rec.jobs[j].state = JobStatus::Running;
  if (to == JobState::Completed) rec.jobs[j].state = JobStatus::Completed;
  if (to == JobState::Abandoned) rec.jobs[j].state = JobStatus::Abandoned;
}

void Controller::Impl::decide(Seconds t, std::string kind, std::string job, std::vector<std::string> nodes,
                              SharedText reason) {
  record(t, kind_text(std::move(kind)), text(std::move(job)), std::move(nodes), std::move(reason));
}

void Controller::Impl::record(Seconds t, SharedText kind, SharedText job, std::vector<std::string> nodes,
                              SharedText reason) {
  rec.decisions.push_back(Decision{t, std::move(kind), std::move(job), std::move(nodes), std::move(reason)});
}

const SharedText& Controller::Impl::job_text(int j) {
  if (job_texts.size() != sc.jobs.size()) job_texts.resize(sc.jobs.size());
  SharedText& t = job_texts[static_cast<std::size_t>(j)];
  if (t.empty()) t = SharedText(sc.jobs[static_cast<std::size_t>(j)].name);  // names are unique: no lookup
  return t;
}

SharedText Controller::Impl::intern(std::unordered_map<std::string, SharedText>& in, std::string s) {
  if (s.empty()) return {};
  auto it = in.find(s);
  if (it == in.end()) it = in.emplace(s, SharedText(s)).first;
  return it->second;
}

bool Controller::Impl::ReasonKey::operator==(const ReasonKey& o) const {
  return r.kind == o.r.kind && r.job == o.r.job && r.queue == o.r.queue && r.a == o.r.a && r.b == o.r.b &&
         r.c == o.r.c && r.d == o.r.d && r.e == o.r.e && r.cohort == o.r.cohort && r.until == o.r.until &&
         r.gpus_per_node == o.r.gpus_per_node;
}

std::size_t Controller::Impl::ReasonKeyHash::operator()(const ReasonKey& k) const {
  const PendingReason& r = k.r;
  std::size_t h = static_cast<std::size_t>(r.kind);
  auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  for (int v : {r.job, r.queue, r.a, r.b, r.c, r.d, r.e, r.gpus_per_node, static_cast<int>(r.cohort)})
    mix(static_cast<std::size_t>(static_cast<unsigned>(v)));
  mix(std::hash<double>{}(r.until.value));
  return h;
}

SharedText Controller::Impl::reason_text(const PendingReason& r) {
  if (reason_texts.size() >= kReasonTexts) reason_texts.clear();
  auto [it, fresh] = reason_texts.try_emplace(ReasonKey{r});
  if (fresh) it->second = SharedText(describe(r, job_names, queue_names));
  return it->second;
}

void Controller::Impl::sample(Seconds now) {
  Sample s{now, cluster.allocated_gpus(), cluster.up_gpus(), running, pending, cluster.fragmentation()};
  if (!rec.series.empty()) {
    Sample& last = rec.series.back();
    bool same = last.gpus_allocated == s.gpus_allocated && last.gpus_up == s.gpus_up &&
                last.jobs_running == s.jobs_running && last.jobs_pending == s.jobs_pending &&
                last.fragmentation == s.fragmentation;
    if (same) return;
    if (last.t == now) {
      last = s;
      return;
    }
  }
  rec.series.push_back(s);
}

bool Controller::Impl::stale(int job, int attempt) const {
  return job < 0 || job >= static_cast<int>(jobs.size()) || jobs[job].attempt != attempt ||
         (jobs[job].state != JobState::Running && jobs[job].state != JobState::Stalled);
}

// Estimated run time from `from` iterations to the end: the declared run time pro rata, else startup plus the
// remaining iterations at the planned iteration time.
Seconds Controller::Impl::remaining_runtime(int j, std::int64_t from) {
  const JobSpec& spec = sc.jobs[j];
  const double left = static_cast<double>(spec.iterations - from) / static_cast<double>(spec.iterations);
  if (spec.estimated_runtime) return *spec.estimated_runtime * left;
  JobRuntime& rt = jobs[j];
  if (rt.iteration_estimate.value == 0) {
    auto [it, fresh] = estimates.try_emplace(plan_key(spec));
    if (fresh) {
      std::vector<int> packed(spec.gpus);
      for (int i = 0; i < spec.gpus; ++i) packed[i] = i;
      it->second = planner(spec, topo, packed, sc.perf).predicted_iteration;
    }
    rt.iteration_estimate = it->second;
  }
  Seconds startup = rt.attempt == 0 ? sc.perf.launch_overhead : sc.recovery.restart_overhead;
  return startup + rt.iteration_estimate * static_cast<double>(spec.iterations - from);
}

void Controller::Impl::enqueue(int j, Seconds t, bool at_head) {
  JobRuntime& rt = jobs[j];
  set_state(j, JobState::Pending);
  rt.enqueued = t;
  sched.enqueue(j, t, remaining_runtime(j, rt.checkpoint), at_head);
}

// --- timers ---------------------------------------------------------------------------------------------------
void Controller::Impl::run_due(Seconds now, std::vector<Action>& out) {
  while (next_submit < submit_order.size() && sc.jobs[submit_order[next_submit]].submit <= now) {
    int j = submit_order[next_submit++];
    record(sc.jobs[j].submit, kind_text("submit"), job_text(j), {},
           "queue " + sc.jobs[j].queue + ", priority " + std::to_string(sc.jobs[j].priority) + ", " +
               std::to_string(sc.jobs[j].gpus) + " GPUs");
    enqueue(j, sc.jobs[j].submit, false);
  }
  while (!stalled.empty() && stalled.begin()->first <= now) {
    int j = stalled.begin()->second;
    stalled.erase(stalled.begin());
    detect_failure(j, out);
  }
  rollout_due(now, out);
}

std::optional<Seconds> Controller::Impl::next_deadline() const {
  std::optional<Seconds> best;
  auto consider = [&](Seconds t) {
    if (!best || t < *best) best = t;
  };
  if (next_submit < submit_order.size()) consider(sc.jobs[submit_order[next_submit]].submit);
  if (!stalled.empty()) consider(stalled.begin()->first);
  if (auto t = sched.next_deadline()) consider(*t);
  if (auto t = rollout_deadline()) consider(*t);
  if (auto t = pools_deadline()) consider(*t);
  if (auto t = telemetry.next_deadline(running > 0)) consider(*t);
  return best;
}

std::vector<Action> Controller::Impl::handle(const Event& event, Seconds now) {
  assert(!finished);
  std::vector<Action> out;
  run_due(now, out);
  std::visit(
      [&](const auto& e) {
        on(e, now, out);
        if constexpr (requires { e.job; }) {
          if (e.job >= 0 && e.job < static_cast<int>(jobs.size())) telemetry.touch(e.job);  // its record may have moved
        }
      },
      event);
  schedule(now, out);
  pools_step(now, out);
  sample(now);
  step_telemetry(now, out);
  return out;
}

namespace {

// plan_iteration() with one CommPlanner for every plan: routes between the same GPUs are worked out once. The last
// few plans are kept by what they depend on (plan_key and the GPUs): the run-time estimate of a job plans it on the
// first GPUs of the cluster, where a job on an idle cluster then launches, and a job that restarts in place is planned
// again for the same GPUs.
Planner caching_planner(const Scenario& s) {
  struct Cache {
    std::shared_ptr<const CommPlanner> planner;
    std::deque<std::pair<std::string, IterationPlan>> recent;  // newest first
  };
  auto cache = std::make_shared<Cache>();
  cache->planner = std::make_shared<const CommPlanner>(s.topology, comm_constants(s.topology.gpu(), s.perf.comm));
  const PerfConstants* perf = &s.perf;
  return [cache, perf](const JobSpec& job, const Topology& topo, const std::vector<int>& gpus,
                       const PerfConstants& k) {
    if (&topo != &cache->planner->topology() || &k != perf) return plan_iteration(job, topo, gpus, k);
    std::string key = plan_key(job);
    key.append(reinterpret_cast<const char*>(gpus.data()), gpus.size() * sizeof(int));
    for (const auto& [known, plan] : cache->recent)
      if (known == key) return plan;
    IterationPlan plan = plan_iteration(job, topo, gpus, k, *cache->planner);
    constexpr std::size_t kKept = 4;
    if (cache->recent.size() == kKept) cache->recent.pop_back();
    cache->recent.emplace_front(std::move(key), plan);
    return plan;
  };
}

}  // namespace

Controller::Controller(const Scenario& scenario) : Controller(scenario, caching_planner(scenario)) {}
Controller::Controller(const Scenario& scenario, Planner planner)
    : impl_(std::make_unique<Impl>(scenario, std::move(planner))) {}
Controller::~Controller() = default;
std::vector<Action> Controller::handle(const Event& event, Seconds now) { return impl_->handle(event, now); }
std::optional<Seconds> Controller::next_deadline() const { return impl_->next_deadline(); }
bool Controller::network_sample_due(Seconds now) const { return impl_->telemetry.sample_due(now); }
bool Controller::done() const { return impl_->done(); }
void Controller::finish(Seconds now) { impl_->finish(now); }
const RunRecord& Controller::record() const { return impl_->rec; }
std::string Controller::pending_reason(int job) const {
  if (!impl_->sched.is_pending(job)) return "";
  return describe(impl_->sched.reason(job), impl_->job_names, impl_->queue_names);
}
const std::vector<int>& Controller::queue_usage() const { return impl_->sched.usage().used; }
const std::vector<int>& Controller::job_gpus(int job) const { return impl_->jobs[job].gpus; }
std::uint64_t Controller::scheduler_passes() const { return impl_->sched.passes(); }
std::uint64_t Controller::scheduler_examinations() const { return impl_->sched.examinations(); }
std::uint64_t Controller::scheduler_reason_changes() const { return impl_->sched.reason_changes(); }
std::uint64_t Controller::scheduler_passed_over() const { return impl_->sched.passed_over(); }
std::string Controller::scheduler_audit(Seconds now) const { return impl_->sched.audit(now, impl_->cluster); }
void Controller::examine_every_waiting_job(bool on) { impl_->sched.examine_every_job(on); }
std::uint64_t Controller::preemption_searches() const { return impl_->sched.searches(); }
void Controller::set_live_metrics(bool live) { impl_->telemetry.set_live(live); }

void Controller::set_driver(std::string name, std::map<std::string, std::string> info) {
  impl_->rec.driver = std::move(name);
  impl_->rec.driver_info = std::move(info);
}

}  // namespace tt
