#include "core/io/section_readers.hpp"

#include <algorithm>
#include <climits>
#include <map>

#include "core/io/reader_support.hpp"
#include "core/sched/quota.hpp"

namespace tt::reader {
namespace {

using Json = nlohmann::json;

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

}  // namespace

std::vector<JobSpec> read_jobs(JsonObject& root, const std::vector<QueueSpec>& queues,
                               const std::vector<PriorityClass>& classes, std::vector<JobSource>& sources) {
  std::vector<std::string> queue_names;
  for (const auto& q : queues) queue_names.push_back(q.name);
  const CohortQuota quota(queues);
  std::vector<JobSpec> jobs;
  std::map<std::string, std::string> seen;
  if (!root.has("jobs") && root.has("workload")) return jobs;  // every job generated (see workload_reader.hpp)
  for (const auto& [v, ptr] : root.array("jobs")) {
    auto o = open(*v, root.file(), ptr,
                  {"name", "queue", "priority", "priority_class", "submit", "gpus", "model", "parallel", "iterations",
                   "global_batch", "seq_len", "checkpoint", "estimated_runtime", "topology", "site", "span_sites"});
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
    j.site = o.opt_str("site").value_or("");  // checked against the topology's sites once it is read
    j.span_sites = o.opt_boolean("span_sites").value_or(false);
    if (!j.site.empty() && j.span_sites) o.fail("span_sites", "no \"span_sites\" for a job pinned to a \"site\"");
    o.finish();

    const auto& p = j.parallel;
    auto world = static_cast<std::int64_t>(p.tp) * p.pp * p.dp;
    if (world != j.gpus)
      o.fail("gpus", "tp x pp x dp GPUs (" + std::to_string(p.tp) + " x " + std::to_string(p.pp) + " x " +
                         std::to_string(p.dp) + " = " + std::to_string(world) + "), found " + std::to_string(j.gpus));
    if (j.model.heads % p.tp != 0)
      par.fail("tp", "a tensor-parallel degree that divides the model's " + std::to_string(j.model.heads) +
                         " attention heads, found " + std::to_string(p.tp));
    if (p.pp > j.model.layers)  // uneven stages are fine (pipeline_stage_layers), an empty one is not
      par.fail("pp", "at most one pipeline stage per layer of the model (" + std::to_string(j.model.layers) +
                         " layers), found " + std::to_string(p.pp));
    if (j.global_batch % p.dp != 0)
      o.fail("global_batch",
             "a global batch divisible by dp (" + std::to_string(p.dp) + "), found " + std::to_string(j.global_batch));
    const auto& q = queues[src.queue];
    if (int cap = quota.max_usable(src.queue); j.gpus > cap)
      o.fail("gpus",
             "at most what queue " + in_quotes(q.name) + " can ever hold (" + std::to_string(cap) +
                 " GPUs: its gpu_quota " + std::to_string(q.gpu_quota) +
                 (q.cohort.empty() ? std::string() : " plus what it may borrow in cohort " + in_quotes(q.cohort)) +
                 "; a bigger job could never run), found " + std::to_string(j.gpus));
    sources.push_back(src);
    jobs.push_back(std::move(j));
  }
  return jobs;
}

}  // namespace tt::reader
