#include "core/sweep/sweep_spec.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/control/check_metrics.hpp"
#include "core/io/reader_support.hpp"
#include "core/io/scenario_reader.hpp"

namespace tt::sweep {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kMaxValues = 10000;

std::string last_token(const std::string& pointer) {
  const auto at = pointer.rfind('/');
  return at == std::string::npos ? pointer : pointer.substr(at + 1);
}

// "600s", "1.5s": a duration in seconds that reads back exactly.
std::string seconds_text(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.12gs", s);
  return buf;
}

std::vector<json> read_range(JsonObject o) {
  const json& from = o.raw("from");
  const json& to = o.raw("to");
  const json& step = o.raw("step");
  o.finish();
  std::vector<json> out;
  const bool durations = from.is_string();
  auto as_number = [&](const json& v, const char* key) -> double {
    if (durations) {
      if (!v.is_string()) o.fail(key, "a duration with its unit, like \"from\", found " + reader::str_of(v));
      auto s = parse_seconds(v.get<std::string>());
      if (!s) o.fail(key, "a duration with its unit (\"30m\"), found " + reader::in_quotes(v.get<std::string>()));
      return s->value;
    }
    if (!v.is_number()) o.fail(key, "a number, or a duration with its unit (\"30m\"), found " + reader::str_of(v));
    return v.get<double>();
  };
  const double a = as_number(from, "from"), b = as_number(to, "to"), d = as_number(step, "step");
  if (!(d > 0)) o.fail("step", "a step > 0");
  if (b < a) o.fail("to", "a value >= \"from\"");
  if ((b - a) / d + 1 > kMaxValues) o.fail("step", "at most " + std::to_string(kMaxValues) + " values in the range");
  const bool integers = !durations && from.is_number_integer() && to.is_number_integer() && step.is_number_integer();
  for (long i = 0;; ++i) {
    const double v = a + static_cast<double>(i) * d;
    if (v > b + d * 1e-9) break;
    if (durations)
      out.emplace_back(seconds_text(v));
    else if (integers)
      out.emplace_back(static_cast<std::int64_t>(std::llround(v)));
    else
      out.emplace_back(v);
  }
  return out;
}

// A JSON pointer, at `where` of the spec.
void check_pointer(const std::string& file, const std::string& where, const std::string& pointer) {
  if (pointer.empty() || pointer.front() != '/')
    throw InputError(file, where, "a JSON pointer starting with \"/\" (\"/topology/nodes\"), found " +
                                      reader::in_quotes(pointer));
  try {
    (void)json::json_pointer(pointer);
  } catch (const json::exception&) {
    throw InputError(file, where, "a valid JSON pointer (RFC 6901), found " + reader::in_quotes(pointer));
  }
}

// "cases": [{"name": "owned", "set": {"/scheduler/overflow": false}}, ...]: named points that set several values.
void read_cases(JsonObject& o, Parameter& p) {
  for (const auto& [c, cptr] : o.array("cases")) {
    JsonObject co = reader::open(*c, o.file(), cptr, {"name", "set"});
    const std::string name = co.str("name");
    if (name.empty()) co.fail("name", "a non-empty case name");
    for (const auto& v : p.values)
      if (v == name) co.fail("name", "a case name of its own; " + reader::in_quotes(name) + " is taken");
    const json& set = co.raw("set");
    if (!set.is_object()) co.fail("set", "an object of JSON pointers and the values they set, found " + set.dump());
    std::vector<std::pair<std::string, json>> sets;
    for (const auto& [pointer, value] : set.items()) {
      check_pointer(o.file(), co.child_pointer("set") + "/" + pointer_escape(pointer), pointer);
      sets.emplace_back(pointer, value);
    }
    co.finish();
    p.values.emplace_back(name);
    p.sets.push_back(std::move(sets));
  }
}

Parameter read_parameter(const json& v, const std::string& file, const std::string& ptr) {
  JsonObject o = reader::open(v, file, ptr, {"pointer", "values", "range", "label", "cases"});
  Parameter p;
  if (o.has("cases")) {
    for (const char* other : {"pointer", "values", "range"})
      if (o.has(other))
        o.fail(other, "no \"" + std::string(other) + "\" beside \"cases\" (each case sets its pointers)");
    read_cases(o, p);
    p.label = o.opt_str("label").value_or("case");
    o.finish();
    return p;
  }
  p.pointer = o.str("pointer");
  check_pointer(file, o.child_pointer("pointer"), p.pointer);
  const bool has_values = o.has("values"), has_range = o.has("range");
  if (has_values == has_range) o.fail_here("exactly one of \"values\", \"range\" or \"cases\"");
  if (has_values) {
    for (const auto& [e, eptr] : o.array("values")) {
      if (e->is_null() || e->is_object() || e->is_array())
        throw InputError(file, eptr, "a number, string or boolean, found " + e->dump());
      p.values.push_back(*e);
    }
  } else {
    reader::present(o, "values");
    p.values = read_range(reader::open_child(o, "range", {"from", "to", "step"}));
  }
  p.label = o.opt_str("label").value_or(last_token(p.pointer));
  o.finish();
  return p;
}

const std::vector<std::string>& stats() {
  static const std::vector<std::string> s = {"mean", "min", "max", "sum", "count", "p50", "p90", "p95", "p99"};
  return s;
}

bool is_stat(const std::string& s) {
  if (std::find(stats().begin(), stats().end(), s) != stats().end()) return true;
  if (s.size() < 2 || s[0] != 'p') return false;
  try {
    std::size_t used = 0;
    const double q = std::stod(s.substr(1), &used);
    return used == s.size() - 1 && q > 0 && q <= 100;
  } catch (const std::exception&) {
    return false;
  }
}

Figure read_figure(const json& v, const std::string& file, const std::string& ptr) {
  JsonObject o = reader::open(v, file, ptr, {"name", "metric", "job", "alert", "report", "jobs", "stat", "queue"});
  Figure f;
  f.name = o.str("name");
  const int sources = o.has("metric") + o.has("report") + o.has("jobs");
  if (sources != 1) o.fail_here("exactly one of \"metric\" (a check metric), \"report\" (a pointer into report.json) "
                                "or \"jobs\" (a field of report.json's jobs)");
  if (o.has("metric")) {
    f.source = Figure::Source::Metric;
    f.metric = o.str("metric");
    const CheckMetric* m = find_check_metric(f.metric);
    if (!m)
      o.fail("metric", "a check metric; " + reader::in_quotes(f.metric) + " is not one" +
                           reader::suggestion(f.metric, check_metric_names()) + " (allowed: " +
                           reader::list_names(check_metric_names(), 40) + ")");
    if (m->scope == MetricScope::Job) f.job = o.str("job");
    if (m->scope == MetricScope::Alert) f.alert = o.str("alert");
    if (m->scope != MetricScope::Job && o.has("job")) o.fail("job", "no job: " + f.metric + " names none");
    if (m->scope != MetricScope::Alert && o.has("alert")) o.fail("alert", "no alert: " + f.metric + " names none");
    if (m->scope == MetricScope::Queue) f.queue = o.str("queue");
    for (const char* k : {"stat", "queue"})
      if (o.has(k) && !(m->scope == MetricScope::Queue && std::string(k) == "queue"))
        o.fail(k, "nothing of \"jobs\" with \"metric\"");
    f.duration = m->unit == MetricUnit::Duration;
  } else if (o.has("report")) {
    f.source = Figure::Source::Report;
    f.pointer = o.str("report");
    for (const char* k : {"job", "alert", "stat", "queue"})
      if (o.has(k)) o.fail(k, "nothing else with \"report\"");
    try {
      (void)json::json_pointer(f.pointer);
    } catch (const json::exception&) {
      o.fail("report", "a JSON pointer into report.json (\"/cluster/goodput\"), found " + reader::in_quotes(f.pointer));
    }
    f.duration = f.pointer.size() > 2 && f.pointer.ends_with("_s");
  } else {
    f.source = Figure::Source::Jobs;
    f.field = o.str("jobs");
    for (const char* k : {"job", "alert"})
      if (o.has(k)) o.fail(k, "no job or alert with \"jobs\" (use \"queue\" to keep one queue's jobs)");
    f.stat = o.str("stat");
    if (!is_stat(f.stat))
      o.fail("stat", "one of " + reader::list_names(stats(), 20) + " or pNN with 0 < NN <= 100, found " +
                         reader::in_quotes(f.stat));
    f.queue = o.opt_str("queue").value_or("");
    f.duration = f.field.ends_with("_s") && f.stat != "count";
  }
  for (const char* k : {"job", "alert", "report", "jobs", "stat", "queue", "metric"}) reader::present(o, k);
  o.finish();
  return f;
}

void set_topology_inline(json& doc, const std::string& base) {
  if (!doc.contains("topology") || !doc["topology"].is_string()) return;
  const fs::path path = fs::path(base).parent_path() / doc["topology"].get<std::string>();
  doc["topology"] = load_json_file(path.string());
}

}  // namespace

SweepSpec read_sweep_spec(const std::string& path, bool check_points) {
  return read_sweep_spec(load_json_file(path), path, check_points);
}

SweepSpec read_sweep_spec(const json& doc, const std::string& file, bool check_points) {
  JsonObject o = reader::open(doc, file, "", {"name", "base", "parameters", "seeds", "figures", "timeout",
                                              "confidence", "description"});
  SweepSpec s;
  s.file = file;
  s.name = o.str("name");
  (void)o.opt_str("description");
  const std::string base = o.str("base");
  s.base = fs::absolute(fs::path(file).parent_path() / base).lexically_normal().string();
  if (!fs::is_regular_file(s.base)) o.fail("base", "a scenario file relative to the spec's directory; " + s.base +
                                                     " does not exist");
  for (const auto& [v, ptr] : o.array("parameters")) s.parameters.push_back(read_parameter(*v, file, ptr));
  for (std::size_t i = 0; i < s.parameters.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if ((!s.parameters[i].cases() && s.parameters[i].pointer == s.parameters[j].pointer) ||
          s.parameters[i].label == s.parameters[j].label)
        throw InputError(file, "/parameters/" + std::to_string(i),
                         "a pointer and label of its own; parameter " + std::to_string(j) + " has them already");
  const json& seeds = o.raw("seeds");
  if (seeds.is_number_integer()) {
    const int n = reader::int_in(o, "seeds", 1, 10000);
    for (int i = 1; i <= n; ++i) s.seeds.push_back(static_cast<std::uint64_t>(i));
  } else if (seeds.is_array() && !seeds.empty()) {
    for (std::size_t i = 0; i < seeds.size(); ++i) {
      if (!seeds[i].is_number_integer() || seeds[i].get<std::int64_t>() < 0)
        throw InputError(file, "/seeds/" + std::to_string(i), "a seed, an integer >= 0, found " + seeds[i].dump());
      s.seeds.push_back(seeds[i].get<std::uint64_t>());
    }
  } else {
    o.fail("seeds", "a count of seeds (1, 2, ... n) or a non-empty array of seeds, found " + seeds.dump());
  }
  for (const auto& [v, ptr] : o.array("figures")) {
    s.figures.push_back(read_figure(*v, file, ptr));
    for (std::size_t j = 0; j + 1 < s.figures.size(); ++j)
      if (s.figures[j].name == s.figures.back().name) throw InputError(file, ptr + "/name", "a figure name of its own");
    for (const auto& p : s.parameters)
      if (p.label == s.figures.back().name)
        throw InputError(file, ptr + "/name", "a name that is not a parameter's label");
  }
  if (auto t = reader::opt_positive_seconds(o, "timeout")) s.timeout = *t;
  if (auto c = o.opt_number("confidence", 0.5, 0.999)) s.confidence = *c;
  o.finish();

  if (!check_points) return s;
  // Every point must be a valid scenario: a pointer that misses, or a value the scenario refuses, is found now.
  const std::vector<Point> points = grid(s);
  for (std::size_t k = 0; k < s.parameters.size(); ++k) {
    const std::string ptr = "/parameters/" + std::to_string(k);
    const Parameter& par = s.parameters[k];
    json doc = load_json_file(s.base);
    if (!par.cases()) {
      if (par.pointer.starts_with("/topology/")) set_topology_inline(doc, s.base);
      if (!doc.contains(json::json_pointer(par.pointer)))
        throw InputError(file, ptr + "/pointer",
                         "a pointer to a value of the base scenario " + s.base + " (topology file inlined); " +
                             reader::in_quotes(par.pointer) + " is not there");
      continue;
    }
    for (std::size_t c = 0; c < par.sets.size(); ++c) {
      json d = doc;  // each case's pointers in turn: one may name a key inside a section an earlier one added
      for (const auto& [pointer, value] : par.sets[c]) {
        if (pointer.starts_with("/topology/")) set_topology_inline(d, s.base);
        const json::json_pointer jp(pointer);
        const json::json_pointer parent = jp.parent_pointer();
        const bool there = d.contains(jp) || (d.contains(parent) && d[parent].is_object());
        if (!there)
          throw InputError(file, ptr + "/cases/" + std::to_string(c) + "/set/" + pointer_escape(pointer),
                           "a pointer to a value of the base scenario " + s.base +
                               ", or to a new key of an object in it; " + reader::in_quotes(pointer) + " is neither");
        d[jp] = value;
      }
    }
  }
  for (const Point& p : points) {
    try {
      (void)read_scenario(point_scenario(s, p), s.base);
    } catch (const InputError& e) {
      throw InputError(file, "/parameters",
                       "values that make a valid scenario; the point " + point_label(s, p) + " does not: " + e.what());
    }
  }
  return s;
}

std::vector<Point> grid(const SweepSpec& spec) {
  std::vector<Point> out;
  std::vector<int> idx(spec.parameters.size(), 0);
  for (int n = 0;; ++n) {
    out.push_back({n, idx});
    int k = static_cast<int>(idx.size()) - 1;
    for (; k >= 0; --k) {
      if (++idx[k] < static_cast<int>(spec.parameters[k].values.size())) break;
      idx[k] = 0;
    }
    if (k < 0) break;
  }
  return out;
}

std::string point_label(const SweepSpec& spec, const Point& p) {
  std::string out;
  for (std::size_t k = 0; k < spec.parameters.size(); ++k)
    out += (k ? " " : "") + spec.parameters[k].label + "=" + reader::str_of(spec.parameters[k].values[p.value_index[k]]);
  return out;
}

json point_scenario(const SweepSpec& spec, const Point& p) {
  json doc = load_json_file(spec.base);
  for (std::size_t k = 0; k < spec.parameters.size(); ++k) {
    const Parameter& par = spec.parameters[k];
    if (par.cases()) {
      for (const auto& [pointer, value] : par.sets[p.value_index[k]]) {
        if (pointer.starts_with("/topology/")) set_topology_inline(doc, spec.base);
        doc[json::json_pointer(pointer)] = value;
      }
      continue;
    }
    if (par.pointer.starts_with("/topology/")) set_topology_inline(doc, spec.base);
    doc[json::json_pointer(par.pointer)] = par.values[p.value_index[k]];
  }
  return doc;
}

std::optional<double> figure_value(const Figure& f, const json& report, const std::optional<double>& metric_value) {
  switch (f.source) {
    case Figure::Source::Metric:
      return metric_value;
    case Figure::Source::Report: {
      const json::json_pointer ptr(f.pointer);
      if (!report.contains(ptr)) return std::nullopt;
      const json& v = report.at(ptr);
      if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
      return v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt;
    }
    case Figure::Source::Jobs: {
      std::vector<double> xs;
      if (report.contains("jobs"))
        for (const json& j : report["jobs"]) {
          if (!f.queue.empty() && j.value("queue", "") != f.queue) continue;
          if (j.contains(f.field) && j[f.field].is_number()) xs.push_back(j[f.field].get<double>());
        }
      if (f.stat == "count") return static_cast<double>(xs.size());
      if (xs.empty()) return std::nullopt;
      std::sort(xs.begin(), xs.end());
      double sum = 0;
      for (double x : xs) sum += x;
      if (f.stat == "sum") return sum;
      if (f.stat == "mean") return sum / static_cast<double>(xs.size());
      if (f.stat == "min") return xs.front();
      if (f.stat == "max") return xs.back();
      const double q = std::stod(f.stat.substr(1)) / 100.0;
      const double h = q * static_cast<double>(xs.size() - 1);
      const auto lo = static_cast<std::size_t>(std::floor(h));
      const std::size_t hi = std::min(lo + 1, xs.size() - 1);
      return xs[lo] + (h - static_cast<double>(lo)) * (xs[hi] - xs[lo]);
    }
  }
  return std::nullopt;
}

}  // namespace tt::sweep
