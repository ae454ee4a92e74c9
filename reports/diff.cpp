#include "reports/diff.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

#include "core/io/input_error.hpp"
#include "core/io/json_reader.hpp"
#include "reports/report.hpp"
#include "reports/text.hpp"

namespace tt {
namespace {

using nlohmann::json;

enum class Kind { Seconds, Ratio, Count, GpuHours };

struct MetricDef {
  const char* key;  // in the report: cluster.<key> or jobs[i].<key>
  bool higher_is_worse;
  Kind kind;
};

constexpr MetricDef kClusterMetrics[] = {
    {"gpu_utilization", false, Kind::Ratio}, {"goodput", false, Kind::Ratio}, {"end_s", true, Kind::Seconds}};
constexpr MetricDef kJobMetrics[] = {
    {"end_s", true, Kind::Seconds},           {"wait_s", true, Kind::Seconds},
    {"restarts", true, Kind::Count},          {"ettr", false, Kind::Ratio},
    {"lost_gpu_hours", true, Kind::GpuHours}, {"measured_iteration_s", true, Kind::Seconds}};

using Figures = std::map<std::string, std::optional<double>>;

struct Report {
  Figures cluster;
  std::vector<std::pair<std::string, Figures>> jobs;
  std::vector<std::pair<std::string, bool>> checks;
};

const json& member(const json& obj, const std::string& key, const std::string& file, const std::string& pointer,
                   const char* expected) {
  if (!obj.contains(key)) throw InputError(file, pointer + "/" + key, std::string(expected) + ", found nothing");
  return obj.at(key);
}

std::optional<double> figure(const json& obj, const char* key, const std::string& file, const std::string& pointer) {
  const json& v = member(obj, key, file, pointer, "a number or null");
  if (v.is_null()) return std::nullopt;
  if (!v.is_number())
    throw InputError(file, pointer + "/" + key, std::string("a number or null, found ") + v.type_name());
  return v.get<double>();
}

std::string string_member(const json& obj, const char* key, const std::string& file, const std::string& pointer) {
  const json& v = member(obj, key, file, pointer, "a string");
  if (!v.is_string()) throw InputError(file, pointer + "/" + key, std::string("a string, found ") + v.type_name());
  return v.get<std::string>();
}

const json& typed(const json& obj, const char* key, json::value_t type, const char* expected, const std::string& file,
                  const std::string& pointer = "") {
  const json& v = member(obj, key, file, pointer, expected);
  if (v.type() != type) throw InputError(file, pointer + "/" + key, std::string(expected) + ", found " + v.type_name());
  return v;
}

Report read_report(const json& doc, const std::string& file) {
  if (!doc.is_object()) throw InputError(file, "", std::string("a traintwin report object, found ") + doc.type_name());
  const json& version = member(doc, "schema_version", file, "", "a traintwin report (schema_version)");
  if (!version.is_number_integer() || version.get<int>() != kReportSchemaVersion)
    throw InputError(file, "/schema_version",
                     "report schema version " + std::to_string(kReportSchemaVersion) + ", found " + version.dump());
  Report r;
  const json& cluster = typed(doc, "cluster", json::value_t::object, "an object", file);
  for (const auto& m : kClusterMetrics) r.cluster[m.key] = figure(cluster, m.key, file, "/cluster");
  const json& jobs = typed(doc, "jobs", json::value_t::array, "an array", file);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    std::string pointer = "/jobs/" + std::to_string(i);
    if (!jobs[i].is_object()) throw InputError(file, pointer, std::string("an object, found ") + jobs[i].type_name());
    std::string name = string_member(jobs[i], "name", file, pointer);
    for (const auto& [other, figures] : r.jobs)
      if (other == name) throw InputError(file, pointer + "/name", "unique job names, found \"" + name + "\" twice");
    Figures figures;
    for (const auto& m : kJobMetrics) figures[m.key] = figure(jobs[i], m.key, file, pointer);
    r.jobs.emplace_back(std::move(name), std::move(figures));
  }
  const json& checks = typed(doc, "checks", json::value_t::array, "an array", file);
  for (std::size_t i = 0; i < checks.size(); ++i) {
    std::string pointer = "/checks/" + std::to_string(i);
    if (!checks[i].is_object())
      throw InputError(file, pointer, std::string("an object, found ") + checks[i].type_name());
    std::string name = string_member(checks[i], "name", file, pointer);
    for (const auto& [other, passed] : r.checks)  // a scenario's check names are unique; matching needs them so
      if (other == name) throw InputError(file, pointer + "/name", "unique check names, found \"" + name + "\" twice");
    const json& passed = typed(checks[i], "passed", json::value_t::boolean, "true or false", file, pointer);
    r.checks.emplace_back(std::move(name), passed.get<bool>());
  }
  return r;
}

Verdict judge(std::optional<double> base, std::optional<double> now, bool higher_is_worse, double tolerance) {
  if (!base && !now) return Verdict::Same;
  if (!now) return Verdict::Regressed;  // e.g. a job that no longer ends
  if (!base) return Verdict::Improved;
  if (*base == *now) return Verdict::Same;
  double delta = *now - *base;
  double magnitude = *base != 0 ? std::abs(delta / *base) : std::abs(delta);
  if (magnitude <= tolerance) return Verdict::Within;
  return (higher_is_worse ? delta > 0 : delta < 0) ? Verdict::Regressed : Verdict::Improved;
}

DiffRow figure_row(std::string metric, std::string subject, std::optional<double> base, std::optional<double> now,
                   bool higher_is_worse, double tolerance) {
  DiffRow row{
      std::move(metric), std::move(subject), base, now, std::nullopt, judge(base, now, higher_is_worse, tolerance)};
  if (base && now && *base != 0) row.change = (*now - *base) / std::abs(*base);
  return row;
}

const MetricDef* find_def(const std::string& metric) {
  auto scan = [&](const auto& defs, const std::string& prefix) -> const MetricDef* {
    for (const auto& d : defs)
      if (prefix + d.key == metric) return &d;
    return nullptr;
  };
  if (auto* d = scan(kClusterMetrics, "cluster.")) return d;
  return scan(kJobMetrics, "job.");
}

std::string show(const std::string& metric, std::optional<double> v) {
  if (!v) return "-";
  if (metric == "check") return *v != 0 ? "pass" : "fail";
  const MetricDef* def = find_def(metric);
  switch (def ? def->kind : Kind::Ratio) {
    case Kind::Seconds:
      return format_fixed(*v, 1) + " s";
    case Kind::Ratio:
      return format_fixed(*v, 4);
    case Kind::Count:
      return format_number(*v);
    case Kind::GpuHours:
      return format_fixed(*v, 2) + " GPUh";
  }
  return format_number(*v);
}

const char* verdict_text(Verdict v) {
  switch (v) {
    case Verdict::Same:
      return "same";
    case Verdict::Within:
      return "within tolerance";
    case Verdict::Improved:
      return "improved";
    case Verdict::Regressed:
      return "REGRESSED";
    case Verdict::Added:
      return "only in new";
    case Verdict::Removed:
      return "only in base";
  }
  return "?";
}

}  // namespace

int ReportDiff::count(Verdict v) const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [&](const DiffRow& r) { return r.verdict == v; }));
}

const std::vector<std::string>& diff_metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& m : kClusterMetrics) out.push_back(std::string("cluster.") + m.key);
    for (const auto& m : kJobMetrics) out.push_back(std::string("job.") + m.key);
    out.push_back("check");
    return out;
  }();
  return names;
}

std::optional<double> parse_tolerance(std::string_view text) {
  bool percent = !text.empty() && text.back() == '%';
  if (percent) text.remove_suffix(1);
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v < 0)
    return std::nullopt;
  if (!percent && v > 1) return std::nullopt;  // "5" is ambiguous: 5% or 500%?
  return percent ? v / 100 : v;
}

ReportDiff diff_reports(const json& base_doc, const json& new_doc, const DiffOptions& options,
                        const std::string& base_label, const std::string& new_label) {
  const auto& known = diff_metric_names();
  for (const auto& m : options.metrics)
    if (std::find(known.begin(), known.end(), m) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw InputError("--metric", "", "one of " + list + "; found \"" + m + "\"");
    }
  auto wanted = [&](const std::string& metric) {
    return options.metrics.empty() ||
           std::find(options.metrics.begin(), options.metrics.end(), metric) != options.metrics.end();
  };
  auto any_job_metric = [&] {
    return options.metrics.empty() || std::any_of(options.metrics.begin(), options.metrics.end(),
                                                  [](const std::string& m) { return m.rfind("job.", 0) == 0; });
  };

  const Report base = read_report(base_doc, base_label);
  const Report now = read_report(new_doc, new_label);
  ReportDiff diff;
  diff.tolerance = options.tolerance;
  for (const auto& m : kClusterMetrics) {
    std::string metric = std::string("cluster.") + m.key;
    if (wanted(metric))
      diff.rows.push_back(
          figure_row(metric, "", base.cluster.at(m.key), now.cluster.at(m.key), m.higher_is_worse, options.tolerance));
  }
  auto find = [](const auto& list, const std::string& name) {
    return std::find_if(list.begin(), list.end(), [&](const auto& e) { return e.first == name; });
  };
  for (const auto& [name, figures] : base.jobs) {
    auto other = find(now.jobs, name);
    if (other == now.jobs.end()) {
      if (any_job_metric())
        diff.rows.push_back({"job", name, std::nullopt, std::nullopt, std::nullopt, Verdict::Removed});
      continue;
    }
    for (const auto& m : kJobMetrics) {
      std::string metric = std::string("job.") + m.key;
      if (wanted(metric))
        diff.rows.push_back(
            figure_row(metric, name, figures.at(m.key), other->second.at(m.key), m.higher_is_worse, options.tolerance));
    }
  }
  for (const auto& [name, figures] : now.jobs)
    if (find(base.jobs, name) == base.jobs.end() && any_job_metric())
      diff.rows.push_back({"job", name, std::nullopt, std::nullopt, std::nullopt, Verdict::Added});
  if (wanted("check")) {
    for (const auto& [name, passed] : base.checks) {
      auto other = find(now.checks, name);
      if (other == now.checks.end()) {
        diff.rows.push_back({"check", name, passed ? 1.0 : 0.0, std::nullopt, std::nullopt, Verdict::Removed});
        continue;
      }
      Verdict v = passed == other->second ? Verdict::Same : passed ? Verdict::Regressed : Verdict::Improved;
      diff.rows.push_back({"check", name, passed ? 1.0 : 0.0, other->second ? 1.0 : 0.0, std::nullopt, v});
    }
    for (const auto& [name, passed] : now.checks)
      if (find(base.checks, name) == base.checks.end())
        diff.rows.push_back({"check", name, std::nullopt, passed ? 1.0 : 0.0, std::nullopt, Verdict::Added});
  }
  return diff;
}

std::string diff_table(const ReportDiff& d) {
  std::vector<std::array<std::string, 5>> cells = {{"metric", "base", "new", "change", "verdict"}};
  for (const auto& row : d.rows) {
    std::string change = "-";
    if (row.metric == "check")
      ;
    else if (row.change)
      change = std::string(*row.change > 0 ? "+" : "") + format_fixed(100 * *row.change, 1) + "%";
    else if (row.verdict == Verdict::Same)
      change = "0.0%";
    else if (row.base && row.now)
      change = "n/a";
    std::string name = row.metric;
    if (!row.subject.empty()) name.append("[").append(row.subject).append("]");
    cells.push_back({name, show(row.metric, row.base), show(row.metric, row.now), change, verdict_text(row.verdict)});
  }
  std::array<std::size_t, 5> width{};
  for (const auto& c : cells)
    for (std::size_t i = 0; i < c.size(); ++i) width[i] = std::max(width[i], c[i].size());
  std::ostringstream os;
  for (const auto& c : cells) {
    std::string line = c[0] + std::string(width[0] - c[0].size(), ' ');
    for (std::size_t i = 1; i < 4; ++i) line += "  " + std::string(width[i] - c[i].size(), ' ') + c[i];
    line += "  " + c[4];
    os << line << "\n";
  }
  int regressed = d.count(Verdict::Regressed);
  os << "compared " << d.rows.size() << (d.rows.size() == 1 ? " row" : " rows") << " at tolerance "
     << format_number(100 * d.tolerance) << "%: " << regressed << " regressed, " << d.count(Verdict::Improved)
     << " improved, " << d.count(Verdict::Within) << " within tolerance, " << d.count(Verdict::Same) << " same";
  if (int one_sided = d.count(Verdict::Added) + d.count(Verdict::Removed))
    os << ", " << one_sided << " in one report only";
  os << "\n" << (regressed ? "REGRESSED" : "OK") << "\n";
  return os.str();
}

int diff_exit_code(const ReportDiff& d) { return d.count(Verdict::Regressed) > 0 ? kDiffRegressed : kDiffOk; }

int diff_report_files(const std::string& base_path, const std::string& new_path, const DiffOptions& options,
                      std::ostream& out, std::ostream& err) {
  try {
    json base = load_json_file(base_path);
    json now = load_json_file(new_path);
    ReportDiff d = diff_reports(base, now, options, base_path, new_path);
    out << diff_table(d);
    return diff_exit_code(d);
  } catch (const InputError& e) {
    err << "error: " << e.what() << "\n";
    return kDiffBadInput;
  }
}

}  // namespace tt
