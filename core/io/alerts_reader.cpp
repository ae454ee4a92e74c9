#include "core/io/section_readers.hpp"

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <map>

#include "core/io/reader_support.hpp"
#include "core/telemetry/alert_expr.hpp"
#include "core/telemetry/metric_catalogue.hpp"

namespace tt::reader {
namespace {

using Json = nlohmann::json;

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

}  // namespace

std::vector<AlertSpec> read_alerts(JsonObject& root) {
  std::vector<AlertSpec> alerts;
  if (!present(root, "alerts")) return alerts;
  std::map<std::string, std::string> seen;
  for (const auto& [v, ptr] : root.array("alerts", /*allow_empty=*/true)) {
    auto o = open(
        *v, root.file(), ptr,
        {"name", "expr", "metric", "match", "aggregation", "op", "threshold", "for", "severity", "labels", "summary"});
    AlertSpec a;
    a.name = o.str("name");
    if (!is_prometheus_name(a.name, false))
      o.fail("name",
             "an alert name of letters, digits and underscores, not starting with a digit, found " + in_quotes(a.name));
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
      if (!c)
        o.fail("expr",
               "a condition AGG(metric{label=\"value\"}) OP NUMBER (AGG optional: sum, max, min, avg, "
               "count; OP: <, <=, >, >=, ==, !=); " +
                   error + " in " + in_quotes(text));
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

}  // namespace tt::reader
