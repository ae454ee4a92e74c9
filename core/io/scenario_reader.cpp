#include "core/io/scenario_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <climits>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/fault/catalogue.hpp"
#include "core/fault/detection.hpp"
#include "core/fault/fault_kind.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/workload_reader.hpp"
#include "core/plan/nccl_settings.hpp"
#include "core/telemetry/alert_expr.hpp"
#include "core/telemetry/metric_catalogue.hpp"

namespace tt {
namespace {

using Json = nlohmann::json;

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// " (did you mean \"x\"?)" for a near miss, else "".
std::string suggestion(const std::string& wrong, const std::vector<std::string>& allowed) {
  const std::string* best = nullptr;
  std::size_t best_d = std::max<std::size_t>(2, wrong.size() / 3) + 1;
  for (const auto& a : allowed) {
    std::size_t d = edit_distance(wrong, a);
    if (d < best_d) best = &a, best_d = d;
  }
  return best ? " (did you mean \"" + *best + "\"?)" : "";
}

// Lists names for a message; long lists (thousands of links) are cut, keeping the count.
std::string list_names(const std::vector<std::string>& names, std::size_t max_shown = 12) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < max_shown; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > max_shown) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

std::string in_quotes(const std::string& s) { return "\"" + s + "\""; }

// Opens an object and rejects unknown keys before any value is read, so a misspelt key is reported as such rather
// than as the required key it was meant to be. finish() must still be called: it proves every allowed key was read.
JsonObject open(const Json& value, const std::string& file, const std::string& pointer,
                const std::vector<std::string>& allowed) {
  JsonObject o(value, file, pointer);
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
    o.fail(it.key(), "a known key; " + in_quotes(it.key()) + " is not one" + suggestion(it.key(), allowed) +
                         " (allowed here: " + list_names(allowed, allowed.size()) + ")");
  }
  return o;
}

JsonObject open_child(JsonObject& parent, const std::string& key, const std::vector<std::string>& allowed) {
  return open(parent.raw(key), parent.file(), parent.child_pointer(key), allowed);
}

int int_in(JsonObject& o, const std::string& key, std::int64_t min, std::int64_t max = INT_MAX) {
  auto v = o.integer(key, min);
  if (v > max)
    o.fail(key, "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], found " + std::to_string(v));
  return static_cast<int>(v);
}

// True when the key is there; an absent key is marked read, so finish() treats an optional key as handled.
bool present(JsonObject& o, const std::string& key) {
  if (o.has(key)) return true;
  o.opt_str(key);
  return false;
}

std::optional<int> opt_int_in(JsonObject& o, const std::string& key, std::int64_t min, std::int64_t max = INT_MAX) {
  if (!present(o, key)) return std::nullopt;
  return int_in(o, key, min, max);
}

Seconds positive_seconds(JsonObject& o, const std::string& key) {
  auto s = o.seconds(key);
  if (s.value <= 0) o.fail(key, "a duration greater than zero, e.g. \"30m\"");
  return s;
}

std::optional<Seconds> opt_positive_seconds(JsonObject& o, const std::string& key) {
  if (!present(o, key)) return std::nullopt;
  return positive_seconds(o, key);
}

// A number in (0, max].
std::optional<double> opt_positive(JsonObject& o, const std::string& key, double max) {
  auto v = o.opt_number(key, -DBL_MAX, DBL_MAX);
  if (v && (*v <= 0 || *v > max)) {
    std::ostringstream os;
    os << "a number in (0, " << max << "], found " << *v;
    o.fail(key, os.str());
  }
  return v;
}

std::string str_of(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// --- sections -----------------------------------------------------------------------------------------------

// One of a fixed set of words, with a suggestion for a near miss.
std::size_t choice(JsonObject& o, const std::string& key, const std::vector<std::string>& allowed,
                   const std::string& what) {
  std::string v = o.str(key);
  auto it = std::find(allowed.begin(), allowed.end(), v);
  if (it == allowed.end())
    o.fail(key, what + " (" + list_names(allowed, allowed.size()) + "), found " + in_quotes(v) + suggestion(v, allowed));
  return static_cast<std::size_t>(it - allowed.begin());
}

std::vector<QueueSpec> read_queues(JsonObject& root) {
  std::vector<QueueSpec> queues;
  std::map<std::string, std::string> seen;
  for (const auto& [v, ptr] : root.array("queues")) {
    auto o = open(*v, root.file(), ptr,
                  {"name", "gpu_quota", "cohort", "borrowing_limit", "lending_limit", "queueing_strategy",
                   "preemption"});
    QueueSpec q;
    q.name = o.str("name");
    if (auto it = seen.find(q.name); it != seen.end())
      o.fail("name", "a queue name not used by an earlier queue; " + in_quotes(q.name) + " is already " + it->second);
    seen.emplace(q.name, ptr);
    q.gpu_quota = int_in(o, "gpu_quota", 1);
    q.cohort = o.opt_str("cohort").value_or("");
    for (const char* key : {"borrowing_limit", "lending_limit"})
      if (q.cohort.empty() && o.has(key))
        o.fail(key, std::string("no \"") + key + "\" for a queue in no cohort (add \"cohort\": a queue borrows and " +
                        "lends only within its cohort)");
    q.borrowing_limit = opt_int_in(o, "borrowing_limit", 0);
    q.lending_limit = opt_int_in(o, "lending_limit", 0, q.gpu_quota);
    if (present(o, "queueing_strategy"))
      q.strategy = choice(o, "queueing_strategy", {"BestEffortFIFO", "StrictFIFO"}, "a queueing strategy") == 0
                       ? QueueingStrategy::BestEffortFifo
                       : QueueingStrategy::StrictFifo;
    if (present(o, "preemption")) {
      auto pre = open_child(o, "preemption", {"within_queue", "reclaim_within_cohort"});
      if (present(pre, "within_queue"))
        q.within_queue = choice(pre, "within_queue", {"Never", "LowerPriority"}, "a within-queue preemption policy") == 0
                             ? WithinQueuePreemption::Never
                             : WithinQueuePreemption::LowerPriority;
      if (present(pre, "reclaim_within_cohort")) {
        if (q.cohort.empty())
          pre.fail("reclaim_within_cohort", "no reclaim for a queue in no cohort (add \"cohort\")");
        q.reclaim = static_cast<ReclaimPreemption>(
            choice(pre, "reclaim_within_cohort", {"Never", "LowerPriority", "Any"}, "a reclaim policy"));
      }
      pre.finish();
    }
    o.finish();
    queues.push_back(std::move(q));
  }
  return queues;
}

std::vector<PriorityClass> read_priority_classes(JsonObject& root) {
  std::vector<PriorityClass> classes;
  if (!present(root, "priority_classes")) return classes;
  std::map<std::string, std::string> seen;
  for (const auto& [v, ptr] : root.array("priority_classes")) {
    auto o = open(*v, root.file(), ptr, {"name", "value"});
    PriorityClass c;
    c.name = o.str("name");
    if (auto it = seen.find(c.name); it != seen.end())
      o.fail("name", "a priority class name not used by an earlier class; " + in_quotes(c.name) + " is already " +
                         it->second);
    seen.emplace(c.name, ptr);
    c.value = int_in(o, "value", INT_MIN);
    o.finish();
    classes.push_back(std::move(c));
  }
  return classes;
}

SchedulerOptions read_scheduler(JsonObject& root) {
  SchedulerOptions s;
  if (!present(root, "scheduler")) return s;
  auto o = open_child(root, "scheduler", {"ordering", "fair_share_half_life", "backfill", "placement", "preemption_exempt_time"});
  if (present(o, "ordering"))
    s.ordering = choice(o, "ordering", {"priority", "fair_share"}, "a queue ordering") == 0 ? QueueOrdering::Priority
                                                                                            : QueueOrdering::FairShare;
  if (o.has("fair_share_half_life") && s.ordering != QueueOrdering::FairShare)
    o.fail("fair_share_half_life", "no half-life unless \"ordering\" is \"fair_share\"");
  s.fair_share_half_life = opt_positive_seconds(o, "fair_share_half_life").value_or(s.fair_share_half_life);
  if (present(o, "backfill")) s.backfill = choice(o, "backfill", {"none", "easy"}, "a backfill policy") == 1;
  if (present(o, "placement"))
    s.placement = choice(o, "placement", {"pack", "spread"}, "a placement policy") == 0 ? PlacementKind::Pack
                                                                                       : PlacementKind::Spread;
  if (auto t = o.opt_seconds("preemption_exempt_time")) s.preemption_exempt_time = *t;
  o.finish();
  return s;
}

// The most GPUs a job of the queue could ever hold: its quota, plus what it may borrow from its idle cohort.
int max_usable(const std::vector<QueueSpec>& queues, const QueueSpec& q) {
  if (q.cohort.empty()) return q.gpu_quota;
  long long lent_by_others = 0;
  for (const auto& other : queues)
    if (&other != &q && other.cohort == q.cohort)
      lent_by_others += std::min(other.gpu_quota, other.lending_limit.value_or(INT_MAX));
  if (q.borrowing_limit) lent_by_others = std::min<long long>(lent_by_others, *q.borrowing_limit);
  return static_cast<int>(std::min<long long>(q.gpu_quota + lent_by_others, INT_MAX));
}

ModelSpec read_model(JsonObject& job) {
  const Json& v = job.raw("model");
  std::string ptr = job.child_pointer("model");
  if (v.is_string()) {
    auto name = v.get<std::string>();
    if (auto preset = find_model_preset(name)) return *preset;
    auto names = model_preset_names();
    throw InputError(job.file(), ptr,
                     "a model preset (" + list_names(names) + ") or a model object; " + in_quotes(name) +
                         " is not a preset" + suggestion(name, names));
  }
  if (!v.is_object())
    throw InputError(job.file(), ptr, "a model preset name or a model object, found " + std::string(v.type_name()));
  auto o =
      open(v, job.file(), ptr,
           {"name", "layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "gated_mlp", "tied_embeddings"});
  ModelSpec m;
  m.name = o.str("name");
  m.layers = int_in(o, "layers", 1);
  m.hidden = int_in(o, "hidden", 1);
  m.heads = int_in(o, "heads", 1);
  m.kv_heads = opt_int_in(o, "kv_heads", 1).value_or(m.heads);
  m.ffn_hidden = int_in(o, "ffn_hidden", 1);
  m.vocab = int_in(o, "vocab", 1);
  m.gated_mlp = o.opt_boolean("gated_mlp").value_or(true);
  m.tied_embeddings = o.opt_boolean("tied_embeddings").value_or(false);
  o.finish();
  if (m.hidden % m.heads != 0)
    o.fail("heads",
           "a head count that divides hidden (" + std::to_string(m.hidden) + "), found " + std::to_string(m.heads));
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
    o.fail("kv_heads", "a key/value head count that divides heads (" + std::to_string(m.heads) + "), found " +
                           std::to_string(m.kv_heads));
  return m;
}

void read_checkpoint(JsonObject& job, JobSpec& spec) {
  auto o = open_child(job, "checkpoint", {"interval", "every", "async", "keep"});
  if (o.has("interval") == o.has("every"))
    o.fail_here(std::string("exactly one of \"interval\" (a duration) or \"every\" (iterations), found ") +
                (o.has("interval") ? "both" : "neither"));
  if (o.has("interval")) spec.checkpoint_interval = positive_seconds(o, "interval");
  if (o.has("every")) spec.checkpoint_every = o.integer("every", 1);
  spec.checkpoint_async = o.opt_boolean("async").value_or(false);
  spec.checkpoint_keep = opt_int_in(o, "keep", 1).value_or(0);
  o.finish();
}

// Keeps tp x pp x dp far from overflow; no cluster comes near it.
constexpr int kMaxDegree = 1 << 20;

struct JobSource {
  std::string pointer;
  int queue = -1;
};

TopologyConstraint read_job_topology(JsonObject& job) {
  auto o = open_child(job, "topology", {"max_leaf_groups", "mode", "max_wait"});
  TopologyConstraint t;
  t.max_leaf_groups = int_in(o, "max_leaf_groups", 1);
  if (present(o, "mode")) t.required = choice(o, "mode", {"required", "preferred"}, "a topology mode") == 0;
  if (!t.required && o.has("max_wait"))
    o.fail("max_wait", "no \"max_wait\" with \"mode\": \"preferred\" (a preferred constraint never waits)");
  t.max_wait = opt_positive_seconds(o, "max_wait");
  o.finish();
  return t;
}

std::vector<JobSpec> read_jobs(JsonObject& root, const std::vector<QueueSpec>& queues,
                               const std::vector<PriorityClass>& classes, std::vector<JobSource>& sources) {
  std::vector<std::string> queue_names;
  for (const auto& q : queues) queue_names.push_back(q.name);
  std::vector<JobSpec> jobs;
  std::map<std::string, std::string> seen;
  if (!root.has("jobs") && root.has("workload")) return jobs;  // every job generated (see workload_reader.hpp)
  for (const auto& [v, ptr] : root.array("jobs")) {
    auto o = open(*v, root.file(), ptr,
                  {"name", "queue", "priority", "priority_class", "submit", "gpus", "model", "parallel", "iterations",
                   "global_batch", "seq_len", "checkpoint", "estimated_runtime", "topology"});
    JobSpec j;
    j.name = o.str("name");
    if (auto it = seen.find(j.name); it != seen.end())
      o.fail("name", "a job name not used by an earlier job; " + in_quotes(j.name) + " is already " + it->second);
    seen.emplace(j.name, ptr);

    j.queue = o.str("queue");
    auto qit = std::find(queue_names.begin(), queue_names.end(), j.queue);
    if (qit == queue_names.end())
      o.fail("queue", "one of the scenario's queues (" + list_names(queue_names) + "); " + in_quotes(j.queue) +
                          " is not one" + suggestion(j.queue, queue_names));
    JobSource src{ptr, static_cast<int>(qit - queue_names.begin())};

    if (o.has("priority") && o.has("priority_class"))
      o.fail("priority_class", "either \"priority\" or \"priority_class\", not both");
    j.priority = opt_int_in(o, "priority", INT_MIN).value_or(0);
    if (auto pc = o.opt_str("priority_class")) {
      auto cit = std::find_if(classes.begin(), classes.end(), [&](const PriorityClass& c) { return c.name == *pc; });
      if (cit == classes.end()) {
        std::vector<std::string> names;
        for (const auto& c : classes) names.push_back(c.name);
        o.fail("priority_class", "one of the scenario's priority_classes (" +
                                     (names.empty() ? std::string("there are none") : list_names(names)) + "); " +
                                     in_quotes(*pc) + " is not one" + suggestion(*pc, names));
      }
      j.priority_class = *pc;
      j.priority = cit->value;
    }
    j.submit = o.opt_seconds("submit").value_or(Seconds(0));
    j.gpus = int_in(o, "gpus", 1);
    j.model = read_model(o);

    auto par = open_child(o, "parallel", {"tp", "pp", "dp"});
    j.parallel.tp = opt_int_in(par, "tp", 1, kMaxDegree).value_or(1);
    j.parallel.pp = opt_int_in(par, "pp", 1, kMaxDegree).value_or(1);
    j.parallel.dp = opt_int_in(par, "dp", 1, kMaxDegree).value_or(1);
    par.finish();

    j.iterations = o.integer("iterations", 1);
    j.global_batch = int_in(o, "global_batch", 1);
    j.seq_len = int_in(o, "seq_len", 1);
    if (present(o, "checkpoint")) read_checkpoint(o, j);
    j.estimated_runtime = opt_positive_seconds(o, "estimated_runtime");
    if (present(o, "topology")) j.topology = read_job_topology(o);
    o.finish();

    const auto& p = j.parallel;
    auto world = static_cast<std::int64_t>(p.tp) * p.pp * p.dp;
    if (world != j.gpus)
      o.fail("gpus", "tp x pp x dp GPUs (" + std::to_string(p.tp) + " x " + std::to_string(p.pp) + " x " +
                         std::to_string(p.dp) + " = " + std::to_string(world) + "), found " + std::to_string(j.gpus));
    if (j.model.heads % p.tp != 0)
      par.fail("tp", "a tensor-parallel degree that divides the model's " + std::to_string(j.model.heads) +
                         " attention heads, found " + std::to_string(p.tp));
    if (j.model.layers % p.pp != 0)
      par.fail("pp", "a pipeline-parallel degree that divides the model's " + std::to_string(j.model.layers) +
                         " layers, found " + std::to_string(p.pp));
    if (j.global_batch % p.dp != 0)
      o.fail("global_batch",
             "a global batch divisible by dp (" + std::to_string(p.dp) + "), found " + std::to_string(j.global_batch));
    const auto& q = queues[src.queue];
    if (int cap = max_usable(queues, q); j.gpus > cap)
      o.fail("gpus", "at most what queue " + in_quotes(q.name) + " can ever hold (" + std::to_string(cap) +
                         " GPUs: its gpu_quota " + std::to_string(q.gpu_quota) +
                         (q.cohort.empty() ? std::string() : " plus what it may borrow in cohort " + in_quotes(q.cohort)) +
                         "; a bigger job could never run), found " + std::to_string(j.gpus));
    sources.push_back(src);
    jobs.push_back(std::move(j));
  }
  return jobs;
}

struct FaultSource {
  std::string pointer;
  std::string target_key;  // "node", "gpu", "link", "switch", "storage" or "job"
};

FaultKind read_fault_kind(JsonObject& o) {
  std::string kind = o.str("kind");
  auto k = parse_fault_kind(kind);
  if (!k) {
    auto names = fault_kind_names();
    o.fail("kind", "a fault kind (" + list_names(names, names.size()) + "), found " + in_quotes(kind) +
                       suggestion(kind, names));
  }
  return *k;
}

// "fraction": required for straggler (speed left) and storage_slow (bandwidth left), in (0, 1); not allowed otherwise.
double read_fraction(JsonObject& o, FaultKind kind) {
  if (!degrades_only(kind)) {
    if (present(o, "fraction"))
      o.fail("fraction", std::string("no \"fraction\" in a ") + to_string(kind) +
                             " fault (only straggler and storage_slow take one)");
    return 1.0;
  }
  double f = o.number("fraction", 0.0, 1.0);
  if (f <= 0 || f >= 1) o.fail("fraction", "a fraction in (0, 1) of the speed or bandwidth left, found " + std::to_string(f));
  return f;
}

const std::vector<std::string> kTargetKeys = {"node", "gpu", "link", "switch", "storage", "job"};

std::vector<FaultSpec> read_faults(JsonObject& root, std::vector<FaultSource>& sources) {
  std::vector<FaultSpec> faults;
  if (!present(root, "faults")) return faults;
  for (const auto& [v, ptr] : root.array("faults", /*allow_empty=*/true)) {
    auto o = open(*v, root.file(), ptr, {"kind", "at", "node", "gpu", "link", "switch", "storage", "job", "repair", "fraction"});
    FaultSpec f;
    f.kind = read_fault_kind(o);
    const std::string kind = to_string(f.kind);
    const std::string key = target_key(f.kind);
    for (const auto& other : kTargetKeys)
      if (other != key && present(o, other))
        o.fail(other, "no " + in_quotes(other) + " in a " + kind + " fault (it names a " + in_quotes(key) + ")");
    f.at = o.seconds("at");
    if (f.kind == FaultKind::StorageSlow)
      f.target = o.opt_str("storage").value_or("");  // the topology's storage when absent
    else
      f.target = o.str(key);
    if (without_repair(f.kind)) {
      if (present(o, "repair"))
        o.fail("repair", "no \"repair\" in a " + kind + " fault (" +
                             (f.kind == FaultKind::CheckpointCorrupt
                                  ? std::string("the corrupt checkpoint stays corrupt; a restore skips it")
                                  : std::string("it ends when its job is killed; the node stays up")) +
                             ")");
    } else {
      f.repair = positive_seconds(o, "repair");
    }
    f.fraction = read_fraction(o, f.kind);
    o.finish();
    sources.push_back({ptr, key});
    faults.push_back(std::move(f));
  }
  return faults;
}

RepairDistribution read_repair(JsonObject& o, const std::string& key) {
  RepairDistribution d;
  const auto& v = o.raw(key);
  if (v.is_string()) {
    d.scale = positive_seconds(o, key);
    return d;
  }
  auto r = open_child(o, key, {"shape", "value", "mean", "median", "sigma"});
  std::string shape = r.str("shape");
  const std::vector<std::string> shapes = {"fixed", "exponential", "lognormal"};
  std::string scale_key;
  if (shape == "fixed") d.shape = RepairDistribution::Shape::Fixed, scale_key = "value";
  else if (shape == "exponential") d.shape = RepairDistribution::Shape::Exponential, scale_key = "mean";
  else if (shape == "lognormal") d.shape = RepairDistribution::Shape::Lognormal, scale_key = "median";
  else r.fail("shape", "a repair-time shape (fixed, exponential, lognormal), found " + in_quotes(shape) + suggestion(shape, shapes));
  for (const char* k : {"value", "mean", "median"})
    if (k != scale_key && present(r, k))
      r.fail(k, "\"" + scale_key + "\" for a " + shape + " repair time, not " + in_quotes(k));
  d.scale = positive_seconds(r, scale_key);
  if (d.shape == RepairDistribution::Shape::Lognormal) {
    d.sigma = r.opt_number("sigma", 0.0, 5.0).value_or(1.0);
  } else if (present(r, "sigma")) {
    r.fail("sigma", "no \"sigma\" for a " + shape + " repair time (only lognormal takes one)");
  }
  r.finish();
  return d;
}

// Reads everything but the catalogue's rates, which need the topology (added by add_catalogue_rates()).
StochasticFaults read_stochastic(JsonObject& root) {
  StochasticFaults st;
  if (!present(root, "stochastic")) return st;
  auto o = open_child(root, "stochastic", {"rates", "scale", "until", "faults"});
  if (auto name = o.opt_str("rates")) {
    if (!find_catalogue(*name)) {
      auto names = catalogue_names();
      o.fail("rates", "a failure-rate catalogue (" + list_names(names) + "), found " + in_quotes(*name) +
                          suggestion(*name, names));
    }
    st.catalogue = *name;
  }
  if (auto scale = opt_positive(o, "scale", 1e6)) {
    if (st.catalogue.empty()) o.fail("scale", "\"scale\" only with \"rates\" (it scales the catalogue's rates)");
    st.scale = *scale;
  }
  st.until = opt_positive_seconds(o, "until");
  if (present(o, "faults")) {
    for (const auto& [v, ptr] : o.array("faults")) {
      auto f = open(*v, o.file(), ptr, {"kind", "mtbf", "repair", "fraction", "cause"});
      FaultRate r;
      r.kind = read_fault_kind(f);
      if (scripted_only(r.kind))
        f.fail("kind", std::string("a fault kind with a rate per cluster component; ") + to_string(r.kind) +
                           " is scripted only (list it under /faults with the job it strikes)");
      r.mtbf = positive_seconds(f, "mtbf");
      if (without_repair(r.kind)) {
        if (present(f, "repair")) f.fail("repair", "no \"repair\" for hangs and deadlocks (the node stays up)");
      } else {
        r.repair = read_repair(f, "repair");
      }
      r.fraction = read_fraction(f, r.kind);
      r.cause = f.opt_str("cause").value_or(to_string(r.kind));
      f.finish();
      st.rates.push_back(r);
    }
  }
  if (st.catalogue.empty() && st.rates.empty())
    o.fail_here("\"rates\" (a catalogue name) or \"faults\" (rates per component), found neither");
  o.finish();
  return st;
}

RecoveryPolicy read_recovery(JsonObject& root, std::optional<Seconds>& explicit_comm_timeout) {
  RecoveryPolicy r;
  if (!present(root, "recovery")) return r;
  auto o = open_child(root, "recovery",
                      {"detection_timeout", "comm_timeout", "watchdog_timeout", "restart_overhead", "max_restarts",
                       "hot_spares", "lemon"});
  r.detection_timeout = opt_positive_seconds(o, "detection_timeout").value_or(r.detection_timeout);
  explicit_comm_timeout = opt_positive_seconds(o, "comm_timeout");
  if (explicit_comm_timeout) r.comm_timeout = *explicit_comm_timeout;
  r.watchdog_timeout = opt_positive_seconds(o, "watchdog_timeout").value_or(r.watchdog_timeout);
  r.hot_spares = opt_int_in(o, "hot_spares", 0).value_or(0);
  if (present(o, "lemon")) {
    auto l = open_child(o, "lemon", {"failures", "window"});
    r.lemon_failures = int_in(l, "failures", 1);
    r.lemon_window = positive_seconds(l, "window");
    l.finish();
  }
  r.restart_overhead = o.opt_seconds("restart_overhead").value_or(r.restart_overhead);
  r.max_restarts = opt_int_in(o, "max_restarts", 0).value_or(r.max_restarts);
  o.finish();
  return r;
}

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

// --- comm: overrides of the communication cost model (core/plan/comm_constants.hpp) ---

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
  const std::vector<std::string> algos = {"ring", "tree", "nvls"};
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

CommOverrides read_comm(JsonObject& root) {
  CommOverrides c;
  if (!present(root, "comm")) return c;
  auto o = open_child(root, "comm",
                      {"nvls", "algorithms", "protocols", "channels", "nvlink_efficiency", "net_efficiency",
                       "base_latency", "hw_latency", "caps", "ib_timeout", "ib_retry_cnt", "socket_ifname"});
  c.nvls = o.opt_boolean("nvls");
  if (present(o, "algorithms"))
    c.algorithms = read_names<Algorithm>(o, "algorithms", parse_algorithm,
                                         {Algorithm::Ring, Algorithm::Tree, Algorithm::Nvls, Algorithm::Hierarchical});
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

enum class ValueKind { Duration, Count, Ratio, NonNegative };

struct MetricInfo {
  const char* name;
  ValueKind kind;
};

constexpr MetricInfo kMetrics[] = {
    {"job.end", ValueKind::Duration},
    {"job.start", ValueKind::Duration},
    {"job.wait", ValueKind::Duration},
    {"job.restarts", ValueKind::Count},
    {"job.preemptions", ValueKind::Count},
    {"job.iterations", ValueKind::Count},
    {"job.ettr", ValueKind::Ratio},
    {"job.lost_gpu_hours", ValueKind::NonNegative},
    {"job.failures", ValueKind::Count},
    {"job.false_failures", ValueKind::Count},
    {"job.flaps_survived", ValueKind::Count},
    {"job.checkpoint_overhead", ValueKind::Ratio},
    {"job.max_time_to_detect", ValueKind::Duration},
    {"cluster.makespan", ValueKind::Duration},
    {"cluster.unfinished_jobs", ValueKind::Count},
    {"cluster.gpu_utilization", ValueKind::Ratio},
    {"cluster.goodput", ValueKind::Ratio},
    {"cluster.ettr", ValueKind::Ratio},
    {"cluster.failures", ValueKind::Count},
    {"cluster.false_failures", ValueKind::Count},
    {"cluster.lost_gpu_hours", ValueKind::NonNegative},
    {"cluster.drained_nodes", ValueKind::Count},
    {"alert.firings", ValueKind::Count},
    {"alert.time_to_fire", ValueKind::Duration},
    {"alert.max_time_to_fire", ValueKind::Duration},
};

constexpr CheckOp kOps[] = {CheckOp::Le, CheckOp::Lt, CheckOp::Ge, CheckOp::Gt, CheckOp::Eq};

// --- telemetry and alerts ------------------------------------------------------------------------------------

TelemetryOptions read_telemetry(JsonObject& root) {
  TelemetryOptions t;
  if (!present(root, "telemetry")) return t;
  auto o = open_child(root, "telemetry", {"interval", "node_series", "job_series"});
  t.interval = opt_positive_seconds(o, "interval").value_or(t.interval);
  t.node_series = o.opt_boolean("node_series").value_or(t.node_series);
  t.job_series = o.opt_boolean("job_series").value_or(t.job_series);
  o.finish();
  return t;
}

bool is_prometheus_name(const std::string& s, bool colons) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (colons && c == ':');
  });
}

// The metric must be in the catalogue and each matcher must name one of its labels.
void check_condition(JsonObject& o, const std::string& metric_key, const std::string& labels_key,
                     const AlertCondition& c) {
  const metric::Info* info = metric::find(c.metric);
  const std::vector<std::string> names = metric::names();
  if (!info)
    o.fail(metric_key, "a metric of traintwin's catalogue (" + list_names(names, names.size()) + "), found " +
                           in_quotes(c.metric) + suggestion(c.metric, names));
  std::vector<std::string> labels(info->labels.begin(), info->labels.end());
  for (const auto& m : c.matchers)
    if (std::find(labels.begin(), labels.end(), m.name) == labels.end())
      o.fail(labels_key, "label matchers on the labels of " + c.metric + " (" +
                             (labels.empty() ? std::string("it has none") : list_names(labels)) + "), found " +
                             in_quotes(m.name) + suggestion(m.name, labels));
}

std::vector<AlertSpec> read_alerts(JsonObject& root) {
  std::vector<AlertSpec> alerts;
  if (!present(root, "alerts")) return alerts;
  std::map<std::string, std::string> seen;
  for (const auto& [v, ptr] : root.array("alerts", /*allow_empty=*/true)) {
    auto o = open(*v, root.file(), ptr,
                  {"name", "expr", "metric", "match", "aggregation", "op", "threshold", "for", "severity", "labels",
                   "summary"});
    AlertSpec a;
    a.name = o.str("name");
    if (!is_prometheus_name(a.name, false))
      o.fail("name", "an alert name of letters, digits and underscores, not starting with a digit, found " +
                         in_quotes(a.name));
    if (auto it = seen.find(a.name); it != seen.end())
      o.fail("name", "an alert name not used by an earlier alert; " + in_quotes(a.name) + " is already " + it->second);
    seen.emplace(a.name, ptr);
    const bool has_expr = o.has("expr"), has_metric = o.has("metric");
    if (has_expr == has_metric)
      o.fail_here(R"(either "expr" (a PromQL condition such as "sum(traintwin_nodes_down) > 0") or the structured )"
                  R"(form "metric", "match", "aggregation", "op", "threshold"; )" +
                  std::string(has_expr ? "found both" : "found neither"));
    if (has_expr) {
      for (const char* k : {"match", "aggregation", "op", "threshold"})
        if (o.has(k)) o.fail(k, "no \"" + std::string(k) + R"(" beside "expr" (it belongs to the structured form))");
      for (const char* k : {"metric", "match", "aggregation", "op", "threshold"}) present(o, k);
      std::string text = o.str("expr"), error;
      auto c = parse_alert_expr(text, error);
      if (!c) o.fail("expr", "a condition AGG(metric{label=\"value\"}) OP NUMBER (AGG optional: sum, max, min, avg, "
                             "count; OP: <, <=, >, >=, ==, !=); " + error + " in " + in_quotes(text));
      a.condition = std::move(*c);
      check_condition(o, "expr", "expr", a.condition);
    } else {
      present(o, "expr");
      a.condition.metric = o.str("metric");
      if (present(o, "match")) {
        const Json& m = o.raw("match");
        if (!m.is_object()) o.fail("match", "an object of label names to values, found " + std::string(m.type_name()));
        for (auto it = m.begin(); it != m.end(); ++it) {
          if (!it->is_string())
            throw InputError(root.file(), o.child_pointer("match") + "/" + pointer_escape(it.key()),
                             "a label value (a string), found " + std::string(it->type_name()));
          a.condition.matchers.push_back({it.key(), true, it->get<std::string>()});
        }
      }
      if (present(o, "aggregation")) {
        const std::vector<std::string> aggs = {"sum", "max", "min", "avg", "count"};
        a.condition.aggregation = static_cast<Aggregation>(choice(o, "aggregation", aggs, "an aggregation") + 1);
      }
      const std::vector<std::string> ops = {"<", "<=", ">", ">=", "==", "!="};
      a.condition.op = static_cast<CompareOp>(choice(o, "op", ops, "a comparison"));
      a.condition.threshold = o.number("threshold", -DBL_MAX, DBL_MAX);
      check_condition(o, "metric", "match", a.condition);
    }
    if (present(o, "for")) {
      a.for_duration = o.seconds("for");
      if (a.for_duration.value < 0) o.fail("for", "a duration of zero or more, e.g. \"1m\"");
    }
    const std::vector<std::string> severities = {"info", "warning", "critical"};
    a.severity = present(o, "severity") ? severities[choice(o, "severity", severities, "a severity")] : "warning";
    if (present(o, "labels")) {
      const Json& l = o.raw("labels");
      if (!l.is_object()) o.fail("labels", "an object of label names to values, found " + std::string(l.type_name()));
      for (auto it = l.begin(); it != l.end(); ++it) {
        const std::string lp = o.child_pointer("labels") + "/" + pointer_escape(it.key());
        if (!is_prometheus_name(it.key(), false) || it.key().rfind("__", 0) == 0 || it.key() == "alertname" ||
            it.key() == "severity")
          throw InputError(root.file(), lp,
                           "a label name of letters, digits and underscores, not starting with a digit or \"__\", "
                           "and neither \"alertname\" nor \"severity\" (set by the rule), found " +
                               in_quotes(it.key()));
        if (!it->is_string()) throw InputError(root.file(), lp, "a label value (a string)");
        a.labels[it.key()] = it->get<std::string>();
      }
    }
    a.summary = o.opt_str("summary").value_or("");
    o.finish();
    alerts.push_back(std::move(a));
  }
  return alerts;
}

std::vector<CheckSpec> read_checks(JsonObject& root, const std::vector<JobSpec>& jobs,
                                   const std::vector<AlertSpec>& alerts) {
  std::vector<CheckSpec> checks;
  if (!present(root, "checks")) return checks;
  std::vector<std::string> metric_names, job_names, op_names;
  for (const auto& m : kMetrics) metric_names.push_back(m.name);
  for (const auto& j : jobs) job_names.push_back(j.name);
  for (auto op : kOps) op_names.push_back(to_string(op));
  std::map<std::string, std::string> seen;

  for (const auto& [v, ptr] : root.array("checks", /*allow_empty=*/true)) {
    auto o = open(*v, root.file(), ptr, {"name", "metric", "job", "alert", "op", "value"});
    CheckSpec c;
    auto name = o.opt_str("name");
    c.metric = o.str("metric");
    auto mit =
        std::find_if(std::begin(kMetrics), std::end(kMetrics), [&](const MetricInfo& m) { return c.metric == m.name; });
    if (mit == std::end(kMetrics))
      o.fail("metric", "a metric (" + list_names(metric_names, metric_names.size()) + "), found " +
                           in_quotes(c.metric) + suggestion(c.metric, metric_names));
    bool per_job = c.metric.rfind("job.", 0) == 0;
    if (per_job) {
      c.job = o.str("job");
      if (std::find(job_names.begin(), job_names.end(), c.job) == job_names.end())
        o.fail("job", "the name of one of the scenario's jobs (" + list_names(job_names) + "); " + in_quotes(c.job) +
                          " is not one" + suggestion(c.job, job_names));
    } else if (present(o, "job")) {
      o.fail("job", std::string("no \"job\" for the ") +
                        (c.metric.rfind("alert.", 0) == 0 ? "alert metric " : "cluster-wide metric ") +
                        in_quotes(c.metric) + " (only job.* metrics take one)");
    }
    const bool per_alert = c.metric.rfind("alert.", 0) == 0;
    if (per_alert) {
      std::vector<std::string> alert_names;
      for (const auto& a : alerts) alert_names.push_back(a.name);
      c.alert = o.str("alert");
      if (std::find(alert_names.begin(), alert_names.end(), c.alert) == alert_names.end())
        o.fail("alert", "the name of one of the scenario's alert rules (" +
                            (alert_names.empty() ? std::string("it has none") : list_names(alert_names)) + "); " +
                            in_quotes(c.alert) + " is not one" + suggestion(c.alert, alert_names));
    } else if (present(o, "alert")) {
      o.fail("alert", "no \"alert\" for the metric " + in_quotes(c.metric) + " (only alert.* metrics take one)");
    }

    auto op = o.str("op");
    auto oit = std::find(op_names.begin(), op_names.end(), op);
    if (oit == op_names.end()) o.fail("op", "a comparison (" + list_names(op_names) + "), found " + in_quotes(op));
    c.op = kOps[oit - op_names.begin()];

    const Json& value = o.raw("value");
    switch (mit->kind) {
      case ValueKind::Duration:
        c.value = o.seconds("value").value;
        break;
      case ValueKind::Count:
        c.value = static_cast<double>(o.integer("value", 0));
        break;
      case ValueKind::Ratio:
        c.value = o.number("value", 0.0, 1.0);
        break;
      case ValueKind::NonNegative:
        if (!value.is_number() || !(value.get<double>() >= 0))
          o.fail("value", "a non-negative number of GPU-hours, found " + value.dump());
        c.value = value.get<double>();
        break;
    }
    o.finish();

    if (name) {
      c.name = *name;
    } else {
      c.name = c.metric + (per_job ? "(" + c.job + ")" : per_alert ? "(" + c.alert + ")" : "") + " " + op + " " +
               str_of(value);
    }
    if (auto it = seen.find(c.name); it != seen.end()) {
      if (name)
        o.fail("name", "a check name not used by an earlier check; " + in_quotes(c.name) + " is already " + it->second);
      o.fail_here("a check that differs from the earlier check " + it->second + " (both are " + in_quotes(c.name) +
                  "; give one a \"name\")");
    }
    seen.emplace(c.name, ptr);
    checks.push_back(std::move(c));
  }
  return checks;
}

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
    if (j.parallel.tp > per_node || per_node % j.parallel.tp != 0)
      throw InputError(root.file(), ptr + "/parallel/tp",
                       "a tensor-parallel degree that divides the " + std::to_string(per_node) +
                           " GPUs of a node (tensor parallelism stays inside a node), found " +
                           std::to_string(j.parallel.tp));
    if (j.gpus > per_node && j.gpus % per_node != 0)
      throw InputError(root.file(), ptr + "/gpus",
                       "a job inside one node (at most " + std::to_string(per_node) + " GPUs) or on whole nodes (a " +
                           "multiple of " + std::to_string(per_node) + "), found " + std::to_string(j.gpus));
    if (j.gpus > t.total_gpus())
      throw InputError(root.file(), ptr + "/gpus",
                       "at most the cluster's " + std::to_string(t.total_gpus()) + " GPUs (" +
                           std::to_string(t.nodes().size()) + " nodes x " + std::to_string(per_node) + "), found " +
                           std::to_string(j.gpus));
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
  auto root = open(
      doc, file, "",
      {"name", "description", "seed", "topology", "queues", "priority_classes", "scheduler", "jobs", "faults",
       "stochastic", "recovery", "perf", "comm", "sim", "telemetry", "alerts", "checks", "workload"});
  Scenario s;
  s.source_file = file;
  s.name = root.str("name");
  s.description = root.opt_str("description").value_or("");
  s.seed = static_cast<std::uint64_t>(root.opt_integer("seed", 0).value_or(1));
  // Everything that does not depend on the cluster is read first; the topology comes last because reading it may
  // open another file, and the checks against it need the jobs and faults.
  s.queues = read_queues(root);
  s.priority_classes = read_priority_classes(root);
  s.scheduler = read_scheduler(root);
  std::vector<JobSource> job_sources;
  s.jobs = read_jobs(root, s.queues, s.priority_classes, job_sources);
  if (!root.has("jobs")) root.opt_str("jobs");
  const std::optional<WorkloadSection> workload = read_workload(root, s.queues, s.priority_classes);
  std::vector<FaultSource> fault_sources;
  s.faults = read_faults(root, fault_sources);
  s.stochastic = read_stochastic(root);
  std::optional<Seconds> comm_timeout;
  s.recovery = read_recovery(root, comm_timeout);
  s.perf = read_perf(root);
  s.perf.comm = read_comm(root);
  if (!comm_timeout) {  // the timeout NCCL's IB settings imply (the comm section, else NCCL's defaults)
    CommConstants k;
    s.recovery.comm_timeout = ib_comm_timeout(s.perf.comm.ib_timeout.value_or(k.ib_timeout),
                                              s.perf.comm.ib_retry_cnt.value_or(k.ib_retry_cnt));
  }
  s.sim = read_sim(root);
  s.telemetry = read_telemetry(root);
  s.alerts = read_alerts(root);
  s.checks = read_checks(root, s.jobs, s.alerts);
  s.topology = read_scenario_topology(root);
  root.finish();
  check_against_topology(root, s, job_sources, fault_sources);
  if (workload) {
    std::vector<int> capacity;
    for (const auto& q : s.queues) capacity.push_back(max_usable(s.queues, q));
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

}  // namespace tt
