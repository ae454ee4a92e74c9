#include "core/io/workload_reader.hpp"

#include <algorithm>
#include <cfloat>
#include <climits>
#include <set>

#include "core/io/reader_support.hpp"

namespace tt {
namespace {

using Json = nlohmann::json;

using reader::in_quotes;

std::string joined(const std::vector<std::string>& names) { return reader::list_names(names, names.size()); }

// Rejects unknown keys before any value is read (a misspelt key is reported as such).
JsonObject open(const Json& v, const std::string& file, const std::string& ptr, const std::vector<std::string>& keys) {
  JsonObject o(v, file, ptr);
  for (auto it = v.begin(); it != v.end(); ++it)
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end())
      o.fail(it.key(), "a known key; " + in_quotes(it.key()) + " is not one (allowed here: " + joined(keys) + ")");
  return o;
}

double weight_of(JsonObject& o) {
  if (!o.has("weight")) {
    o.opt_str("weight");
    return 1;
  }
  double w = o.number("weight", 0, 1e12);
  if (w <= 0) o.fail("weight", "a weight greater than zero");
  return w;
}

// {"shape": "fixed", "value": V} | exponential "mean" | lognormal "median" + "sigma" | uniform "min" + "max".
// Values are durations (seconds) or plain numbers (iterations).
Distribution read_distribution(JsonObject& parent, const std::string& key, bool durations) {
  auto o = open(parent.raw(key), parent.file(), parent.child_pointer(key),
                {"shape", "value", "mean", "median", "sigma", "min", "max"});
  const std::string shape = o.str("shape");
  auto value = [&](const std::string& k) {
    double v = durations ? o.seconds(k).value : o.number(k, 0, 1e15);
    if (v <= 0) o.fail(k, durations ? "a duration greater than zero" : "a number greater than zero");
    return v;
  };
  auto forbid = [&](std::initializer_list<const char*> keys) {
    for (const char* k : keys)
      if (o.has(k)) o.fail(k, "no " + in_quotes(k) + " for a " + shape + " distribution");
  };
  Distribution d;
  if (shape == "fixed") {
    forbid({"mean", "median", "sigma", "min", "max"});
    d.shape = Distribution::Shape::Fixed, d.a = value("value");
  } else if (shape == "exponential") {
    forbid({"value", "median", "sigma", "min", "max"});
    d.shape = Distribution::Shape::Exponential, d.a = value("mean");
  } else if (shape == "lognormal") {
    forbid({"value", "mean", "min", "max"});
    d.shape = Distribution::Shape::Lognormal, d.a = value("median");
    d.b = o.opt_number("sigma", 0.0, 5.0).value_or(1.0);
  } else if (shape == "uniform") {
    forbid({"value", "mean", "median", "sigma"});
    d.shape = Distribution::Shape::Uniform, d.a = value("min"), d.b = value("max");
    if (d.b < d.a) o.fail("max", "a high end at least the low end (\"min\")");
  } else {
    o.fail("shape", "a distribution shape (fixed, exponential, lognormal, uniform), found " + in_quotes(shape));
  }
  for (const char* k : {"value", "mean", "median", "sigma", "min", "max"})
    if (!o.has(k)) o.opt_str(k);  // absent: marked as handled
  o.finish();
  return d;
}

}  // namespace

std::optional<WorkloadSection> read_workload(JsonObject& root, const std::vector<QueueSpec>& queues,
                                             const std::vector<PriorityClass>& classes) {
  if (!root.has("workload")) {
    root.opt_str("workload");
    return std::nullopt;
  }
  WorkloadSection w;
  w.file = root.file();
  w.pointer = root.child_pointer("workload");
  WorkloadSpec& s = w.spec;
  auto o = open(root.raw("workload"), root.file(), w.pointer,
                {"arrivals", "sizes", "models", "iterations", "duration", "queues", "priority_classes", "seq_len",
                 "micro_batches", "checkpoint", "prefix"});

  auto a = open(o.raw("arrivals"), o.file(), o.child_pointer("arrivals"),
                {"per_hour", "time_of_day", "start", "until", "max_jobs"});
  s.rate_per_hour = a.number("per_hour", 0, 1e9);
  if (s.rate_per_hour <= 0) a.fail("per_hour", "a rate greater than zero (mean arrivals per hour)");
  if (a.has("time_of_day")) {
    const Json& tod = a.raw("time_of_day");
    if (!tod.is_array() || tod.size() != 24)
      a.fail("time_of_day", "an array of 24 multipliers of the rate, one per hour of the day");
    for (std::size_t h = 0; h < 24; ++h) {
      if (!tod[h].is_number() || tod[h].get<double>() < 0 || tod[h].get<double>() > 1e6)
        throw InputError(a.file(), a.child_pointer("time_of_day") + "/" + std::to_string(h),
                         "a multiplier in [0, 1000000], found " + tod[h].dump());
      s.time_of_day.push_back(tod[h].get<double>());
    }
    if (*std::max_element(s.time_of_day.begin(), s.time_of_day.end()) <= 0)
      a.fail("time_of_day", "at least one hour with a multiplier greater than zero");
  } else {
    a.opt_str("time_of_day");
  }
  s.start = a.opt_seconds("start").value_or(Seconds(0));
  s.until = a.seconds("until");
  if (s.until.value <= s.start.value) a.fail("until", "a time after \"start\"");
  if (auto m = a.opt_integer("max_jobs", 1)) {
    if (*m > 10000000) a.fail("max_jobs", "at most 10000000 jobs");
    s.max_jobs = static_cast<int>(*m);
  }
  a.finish();

  for (const auto& [v, ptr] : o.array("sizes")) {
    auto e = open(*v, o.file(), ptr, {"gpus", "weight"});
    auto g = e.integer("gpus", 1);
    if (g > 1 << 24) e.fail("gpus", "at most 16777216 GPUs");
    s.sizes.emplace_back(static_cast<int>(g), weight_of(e));
    e.finish();
  }
  for (const auto& [v, ptr] : o.array("models")) {
    auto e = open(*v, o.file(), ptr, {"preset", "weight", "min_gpus", "max_gpus"});
    WorkloadModel m;
    const std::string name = e.str("preset");
    auto preset = find_model_preset(name);
    if (!preset) e.fail("preset", "a model preset (" + joined(model_preset_names()) + "), found " + in_quotes(name));
    m.model = *preset;
    m.weight = weight_of(e);
    m.min_gpus = static_cast<int>(std::min<std::int64_t>(e.opt_integer("min_gpus", 1).value_or(1), INT_MAX));
    m.max_gpus = static_cast<int>(std::min<std::int64_t>(e.opt_integer("max_gpus", 1).value_or(INT_MAX), INT_MAX));
    if (m.max_gpus < m.min_gpus) e.fail("max_gpus", "at least \"min_gpus\" (" + std::to_string(m.min_gpus) + ")");
    e.finish();
    s.models.push_back(m);
  }
  if (o.has("iterations") == o.has("duration"))
    o.fail_here(std::string("exactly one of \"iterations\" or \"duration\" (a distribution), found ") +
                (o.has("iterations") ? "both" : "neither"));
  if (o.has("iterations")) s.iterations = read_distribution(o, "iterations", false);
  if (o.has("duration")) s.duration = read_distribution(o, "duration", true);
  for (const char* k : {"iterations", "duration"})
    if (!o.has(k)) o.opt_str(k);

  std::vector<std::string> queue_names;
  for (const auto& q : queues) queue_names.push_back(q.name);
  for (const auto& [v, ptr] : o.array("queues")) {
    auto e = open(*v, o.file(), ptr, {"name", "weight"});
    std::string name = e.str("name");
    if (std::find(queue_names.begin(), queue_names.end(), name) == queue_names.end())
      e.fail("name", "one of the scenario's queues (" + joined(queue_names) + "); " + in_quotes(name) + " is not one");
    s.queues.emplace_back(name, weight_of(e));
    e.finish();
  }
  if (o.has("priority_classes")) {
    std::vector<std::string> class_names;
    for (const auto& c : classes) class_names.push_back(c.name);
    for (const auto& [v, ptr] : o.array("priority_classes")) {
      auto e = open(*v, o.file(), ptr, {"name", "weight"});
      std::string name = e.str("name");
      if (std::find(class_names.begin(), class_names.end(), name) == class_names.end())
        e.fail("name", "one of the scenario's priority_classes (" +
                           (class_names.empty() ? std::string("there are none") : joined(class_names)) + "); " +
                           in_quotes(name) + " is not one");
      s.priority_classes.emplace_back(name, weight_of(e));
      e.finish();
    }
  } else {
    o.opt_str("priority_classes");
  }
  if (auto v = o.opt_integer("seq_len", 1)) {
    if (*v > 1 << 24) o.fail("seq_len", "at most 16777216 tokens");
    s.seq_len = static_cast<int>(*v);
  }
  if (auto v = o.opt_integer("micro_batches", 1)) {
    if (*v > 1 << 20) o.fail("micro_batches", "at most 1048576");
    s.micro_batches = static_cast<int>(*v);
  }
  if (o.has("checkpoint")) {
    auto c = open(o.raw("checkpoint"), o.file(), o.child_pointer("checkpoint"), {"interval", "async"});
    s.checkpoint_interval = c.seconds("interval");
    if (s.checkpoint_interval->value <= 0) c.fail("interval", "a duration greater than zero, e.g. \"2h\"");
    s.checkpoint_async = c.opt_boolean("async").value_or(false);
    c.finish();
  } else {
    o.opt_str("checkpoint");
  }
  s.prefix = o.opt_str("prefix").value_or("w");
  if (s.prefix.empty()) o.fail("prefix", "a non-empty job-name prefix");
  o.finish();
  return w;
}

void expand_workload(const WorkloadSection& w, Scenario& s, const std::vector<int>& queue_capacity) {
  const WorkloadSpec& spec = w.spec;
  const Topology& t = s.topology;
  const int per_node = t.gpus_per_node();
  for (std::size_t i = 0; i < spec.sizes.size(); ++i) {
    const int g = spec.sizes[i].first;
    const std::string ptr = w.pointer + "/sizes/" + std::to_string(i) + "/gpus";
    if (g > t.total_gpus() || (g > per_node && g % per_node != 0))
      throw InputError(w.file, ptr,
                       "a size inside one node (at most " + std::to_string(per_node) + " GPUs) or of whole nodes (a " +
                           "multiple of " + std::to_string(per_node) + ") and at most the cluster's " +
                           std::to_string(t.total_gpus()) + " GPUs, found " + std::to_string(g));
    const bool model = std::any_of(spec.models.begin(), spec.models.end(), [&](const WorkloadModel& m) {
      return g >= m.min_gpus && g <= m.max_gpus && choose_parallelism(g, m.model, per_node, t.gpu().memory);
    });
    if (!model)
      throw InputError(w.file, ptr,
                       "a size that some model of \"models\" allows (within its min_gpus and max_gpus, and whose "
                       "weights and optimizer state fit the GPUs), found " +
                           std::to_string(g));
    bool queue = false;
    for (const auto& [name, weight] : spec.queues)
      for (std::size_t q = 0; q < s.queues.size(); ++q)
        if (s.queues[q].name == name && queue_capacity[q] >= g) queue = true;
    if (!queue)
      throw InputError(w.file, ptr,
                       "a size that some queue of \"queues\" can hold (its quota plus what it may borrow), found " +
                           std::to_string(g));
  }
  WorkloadContext ctx{t, s.queues, queue_capacity, s.priority_classes, s.perf.compute_efficiency};
  std::vector<JobSpec> jobs = expand_workload(spec, ctx, s.seed);
  std::set<std::string> names;
  for (const auto& j : s.jobs) names.insert(j.name);
  for (auto& j : jobs) {
    if (names.count(j.name))
      throw InputError(w.file, w.pointer + "/prefix",
                       "a prefix whose generated names (" + j.name + ", ...) no explicit job uses");
    s.jobs.push_back(std::move(j));
  }
}

}  // namespace tt
