#include "sweep/search.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/io/input_error.hpp"
#include "core/io/reader_support.hpp"
#include "sweep/table.hpp"

namespace tt::sweep {
namespace {

int figure_index(const SweepSpec& spec, const std::string& name, const std::string& where) {
  for (std::size_t f = 0; f < spec.figures.size(); ++f)
    if (spec.figures[f].name == name) return static_cast<int>(f);
  std::vector<std::string> names;
  for (const auto& f : spec.figures) names.push_back(f.name);
  throw InputError(where, "", "a figure of " + spec.file + "; \"" + name + "\" is not one" +
                                  reader::suggestion(name, names) + " (figures: " + reader::list_names(names) + ")");
}

int parameter_index(const SweepSpec& spec, const std::string& name, const std::string& where) {
  std::vector<std::string> labels;
  for (std::size_t k = 0; k < spec.parameters.size(); ++k) {
    if (spec.parameters[k].label == name || spec.parameters[k].pointer == name) return static_cast<int>(k);
    labels.push_back(spec.parameters[k].label);
  }
  throw InputError(where, "", "a parameter (label or pointer) of " + spec.file + "; \"" + name + "\" is not one" +
                                  reader::suggestion(name, labels) + " (parameters: " + reader::list_names(labels) +
                                  ")");
}

std::string fig_text(const Figure& f, double v) {
  char buf[64];
  if (f.duration) {
    std::snprintf(buf, sizeof buf, "%.0fs", v);
    return buf + std::string(" (") + (v < 0 ? "-" : "") + format_seconds(Seconds(std::fabs(v))) + ")";
  }
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string interval_text(const SweepSpec& spec, const Figure& f, const Interval& i) {
  if (!i.has_interval()) return fig_text(f, i.mean) + " (one seed: no interval)";
  char conf[16];
  std::snprintf(conf, sizeof conf, "%.0f%%", spec.confidence * 100);
  return fig_text(f, i.mean) + ", " + conf + " interval [" + fig_text(f, i.low) + ", " + fig_text(f, i.high) + "]";
}

}  // namespace

Constraint parse_constraint(const SweepSpec& spec, const std::string& text) {
  std::istringstream in(text);
  Constraint c;
  std::string value;
  in >> c.figure >> c.op >> value;
  std::string rest;
  in >> rest;
  if (c.figure.empty() || value.empty() || !rest.empty())
    throw InputError("--constraint", "", "\"FIGURE OP VALUE\" (\"wait_p95 <= 1h\"), found \"" + text + "\"");
  if (c.op != "<=" && c.op != "<" && c.op != ">=" && c.op != ">")
    throw InputError("--constraint", "", "an operator <=, <, >= or >, found \"" + c.op + "\" in \"" + text + "\"");
  const Figure& f = spec.figures[figure_index(spec, c.figure, "--constraint")];
  if (auto s = parse_seconds(value); s && f.duration) {
    c.value = s->value;
  } else {
    try {
      std::size_t used = 0;
      c.value = std::stod(value, &used);
      if (used != value.size()) throw std::invalid_argument(value);
    } catch (const std::exception&) {
      throw InputError("--constraint", "", std::string("a number") + (f.duration ? " or a duration (\"1h\")" : "") +
                                               " as the threshold of " + f.name + ", found \"" + value + "\"");
    }
  }
  c.text = text;
  return c;
}

Objective parse_objective(const SweepSpec& spec, const std::string& text) {
  const auto colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  Objective o;
  if (colon == std::string::npos || colon + 1 == text.size())
    throw InputError("--objective", "", "KIND:TARGET with KIND smallest, largest (a parameter) or max, min (a figure), "
                                        "found \"" + text + "\"");
  o.target = text.substr(colon + 1);
  if (kind == "smallest") o.kind = Objective::Kind::Smallest;
  else if (kind == "largest") o.kind = Objective::Kind::Largest;
  else if (kind == "max") o.kind = Objective::Kind::Max;
  else if (kind == "min") o.kind = Objective::Kind::Min;
  else
    throw InputError("--objective", "", "smallest:, largest:, max: or min: before the target, found \"" + kind + ":\"" +
                                            reader::suggestion(kind, {"smallest", "largest", "max", "min"}));
  if (o.kind == Objective::Kind::Smallest || o.kind == Objective::Kind::Largest)
    (void)parameter_index(spec, o.target, "--objective");
  else
    (void)figure_index(spec, o.target, "--objective");
  return o;
}

SizeAnswer size(const SweepSpec& spec, const Objective& objective, const std::vector<Constraint>& constraints,
                const SweepOptions& options) {
  int par = -1;
  if (objective.kind == Objective::Kind::Smallest || objective.kind == Objective::Kind::Largest) {
    par = parameter_index(spec, objective.target, "--objective");
  }
  for (std::size_t k = 0; k < spec.parameters.size(); ++k) {
    if (static_cast<int>(k) == par || spec.parameters[k].values.size() == 1) continue;
    if (par >= 0)
      throw InputError(spec.file, "/parameters/" + std::to_string(k),
                       "one value: `traintwin size` varies only the parameter it searches");
    par = static_cast<int>(k);
  }
  if (par < 0) throw InputError(spec.file, "/parameters", "a parameter with several values to search");
  SizeAnswer a;
  a.parameter = spec.parameters[par].label;
  const std::vector<Point> points = grid(spec);  // one point per value of `par`: the others have one value
  const int n = static_cast<int>(points.size());
  std::vector<std::optional<Evaluated>> done(n);

  auto evaluate = [&](int i) -> const Evaluated& {
    if (done[i]) return *done[i];
    SweepOptions o = options;
    o.points = std::make_pair(i, i);
    const SweepOutcome r = run_sweep(spec, o);
    if (r.interrupted) throw std::runtime_error("interrupted: run the same command again to resume");
    Table t = collect(spec, options.out);
    Evaluated e;
    e.value_index = i;
    e.figures = t.rows[i].figures;
    e.meets = true;
    for (const Constraint& c : constraints) {
      const int f = figure_index(spec, c.figure, "--constraint");
      const auto& iv = e.figures[f];
      bool ok = false;
      if (iv) {
        if (c.op == "<=") ok = iv->high <= c.value;
        if (c.op == "<") ok = iv->high < c.value;
        if (c.op == ">=") ok = iv->low >= c.value;
        if (c.op == ">") ok = iv->low > c.value;
      }
      if (!ok) {
        e.meets = false;
        e.why = c.text + " missed: " + c.figure + " = " +
                (iv ? interval_text(spec, spec.figures[f], *iv) : std::string("not measured"));
        break;
      }
    }
    done[i] = e;
    return *done[i];
  };

  auto value_text = [&](int i) { return a.parameter + " = " + reader::str_of(spec.parameters[par].values[i]); };
  if (objective.kind == Objective::Kind::Smallest || objective.kind == Objective::Kind::Largest) {
    const bool smallest = objective.kind == Objective::Kind::Smallest;
    // Positions in the direction of the search: the answer is the first position that meets.
    auto at = [&](int pos) { return smallest ? pos : n - 1 - pos; };
    if (!evaluate(at(n - 1)).meets) {
      a.text = "no value meets the constraints: even " + value_text(at(n - 1)) + " misses (" +
               done[at(n - 1)]->why + ")";
    } else {
      int lo = 0, hi = n - 1;  // hi meets; answer in [lo, hi]
      while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (evaluate(at(mid)).meets) hi = mid;
        else lo = mid + 1;
      }
      a.value_index = at(hi);
      a.text = (smallest ? "smallest " : "largest ") + value_text(at(hi)) + " meets the constraints";
      if (hi > 0) a.text += "; the next value " + value_text(at(hi - 1)) + " does not (" + done[at(hi - 1)]->why + ")";
      else a.text += "; it is the first value of the spec (the answer may lie beyond it)";
    }
  } else {
    const int f = figure_index(spec, objective.target, "--objective");
    const bool maximise = objective.kind == Objective::Kind::Max;
    for (int i = 0; i < n; ++i) evaluate(i);
    for (int i = 0; i < n; ++i) {
      const Evaluated& e = *done[i];
      if (!e.meets || !e.figures[f]) continue;
      if (!a.value_index) {
        a.value_index = i;
        continue;
      }
      const double best = done[*a.value_index]->figures[f]->mean, m = e.figures[f]->mean;
      if (maximise ? m > best : m < best) a.value_index = i;
    }
    if (!a.value_index) {
      a.text = "no value meets the constraints";
    } else {
      const Interval& best = *done[*a.value_index]->figures[f];
      for (int i = 0; i < n; ++i) {
        const Evaluated& e = *done[i];
        if (i == *a.value_index || !e.meets || !e.figures[f]) continue;
        if (e.figures[f]->high >= best.low && e.figures[f]->low <= best.high) a.indistinguishable.push_back(i);
      }
      a.text = value_text(*a.value_index) + (maximise ? " maximises " : " minimises ") + objective.target + ": " +
               interval_text(spec, spec.figures[f], best);
      if (a.indistinguishable.empty()) {
        a.text += "; no other value's interval overlaps it";
      } else {
        a.text += "; not distinguishable at this confidence from";
        for (int i : a.indistinguishable) a.text += " " + reader::str_of(spec.parameters[par].values[i]);
      }
    }
  }
  for (const auto& e : done)
    if (e) a.evaluated.push_back(*e);
  return a;
}

nlohmann::json size_json(const SweepSpec& spec, const Objective& objective, const std::vector<Constraint>& constraints,
                         const SizeAnswer& a) {
  using nlohmann::json;
  int par = 0;
  for (std::size_t k = 0; k < spec.parameters.size(); ++k)
    if (spec.parameters[k].label == a.parameter) par = static_cast<int>(k);
  json evaluated = json::array();
  for (const Evaluated& e : a.evaluated) {
    json figs = json::object();
    for (std::size_t f = 0; f < spec.figures.size(); ++f) {
      const auto& i = e.figures[f];
      figs[spec.figures[f].name] = i ? json{{"n", i->n}, {"mean", i->mean}, {"low", i->low}, {"high", i->high}}
                                     : json(nullptr);
    }
    evaluated.push_back({{"value", spec.parameters[par].values[e.value_index]}, {"meets", e.meets},
                         {"why", e.why}, {"figures", figs}});
  }
  json cons = json::array();
  for (const auto& c : constraints) cons.push_back(c.text);
  json indist = json::array();
  for (int i : a.indistinguishable) indist.push_back(spec.parameters[par].values[i]);
  return {{"sweep", spec.name},
          {"parameter", a.parameter},
          {"objective", objective.target},
          {"constraints", cons},
          {"confidence", spec.confidence},
          {"answer", a.value_index ? spec.parameters[par].values[*a.value_index] : json(nullptr)},
          {"indistinguishable", indist},
          {"text", a.text},
          {"evaluated", evaluated}};
}

}  // namespace tt::sweep
