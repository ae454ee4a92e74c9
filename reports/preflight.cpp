#include "reports/preflight.hpp"

#include <sstream>

namespace tt {
namespace {

using preflight::Difference;
using preflight::Severity;

std::string hosts_text(const std::vector<std::string>& hosts) {
  std::string out;
  for (std::size_t i = 0; i < hosts.size() && i < 8; ++i) out += (i ? ", " : "") + hosts[i];
  if (hosts.size() > 8) out += ", ... (" + std::to_string(hosts.size()) + " nodes)";
  return out;
}

std::string difference_text(const Difference& d) {
  std::ostringstream os;
  os << "found: " << d.found << "\nexpected: " << d.expected << "\nhosts: " << hosts_text(d.hosts)
     << "\nleads to: " << d.failure << "\n";
  if (!d.rule.empty()) os << "rule: " << d.rule << " (" << preflight::rule(d.rule).source << ")\n";
  return os.str();
}

}  // namespace

std::string preflight_text(const preflight::Verdict& v) {
  std::ostringstream os;
  os << "preflight: " << v.nodes << " node(s), baseline: " << v.baseline << "\n";
  os << "groups (nodes alike in every attribute): " << v.groups.size() << "\n";
  for (std::size_t g = 0; g < v.groups.size(); ++g)
    os << "  group " << g + 1 << ": " << v.groups[g].size() << " node(s): " << hosts_text(v.groups[g]) << "\n";
  if (v.differences.empty()) os << "differences: none\n";
  for (const auto& d : v.differences) {
    os << "\n" << (d.severity == Severity::Blocking ? "BLOCKING" : "warning") << "  " << d.check << " on "
       << d.hosts.size() << " node(s): " << hosts_text(d.hosts) << "\n";
    os << "  found " << d.found << ", expected " << d.expected << "\n";
    os << "  leads to: " << d.failure << "\n";
    if (!d.rule.empty()) os << "  rule " << d.rule << ": " << preflight::rule(d.rule).source << "\n";
  }
  os << "\n" << v.count(Severity::Blocking) << " blocking, " << v.count(Severity::Warning) << " warning(s)\n";
  os << (v.blocking() ? "BLOCKED: do not deploy while blocking differences remain\n" : "OK\n");
  return os.str();
}

nlohmann::json preflight_json(const preflight::Verdict& v) {
  nlohmann::json j;
  j["format"] = "traintwin-preflight/1";
  j["nodes"] = v.nodes;
  j["baseline"] = v.baseline;
  j["verdict"] = v.blocking() ? "blocked" : "ok";
  j["groups"] = v.groups;
  j["checks"] = v.checks;
  j["differences"] = nlohmann::json::array();
  for (const auto& d : v.differences)
    j["differences"].push_back({{"check", d.check},
                                {"severity", preflight::to_string(d.severity)},
                                {"rule", d.rule},
                                {"hosts", d.hosts},
                                {"found", d.found},
                                {"expected", d.expected},
                                {"leads_to", d.failure}});
  j["rules"] = nlohmann::json::array();
  for (const auto& r : preflight::rules())
    j["rules"].push_back({{"id", r.id},
                          {"severity", preflight::to_string(r.severity)},
                          {"checks", r.summary},
                          {"leads_to", r.failure},
                          {"source", r.source}});
  return j;
}

JunitSuite preflight_junit(const preflight::Verdict& v) {
  JunitSuite s;
  s.name = "preflight";
  s.properties = {{"baseline", v.baseline}, {"nodes", std::to_string(v.nodes)},
                  {"verdict", v.blocking() ? "blocked" : "ok"}};
  for (const auto& check : v.checks) {
    JunitCase c{"traintwin.preflight", check, std::nullopt};
    std::string blocking_text, warnings;
    int blocking = 0;
    for (const auto& d : v.differences) {
      if (d.check != check) continue;
      if (d.severity == Severity::Blocking) ++blocking, blocking_text += difference_text(d) + "\n";
      else warnings += d.found + " on " + hosts_text(d.hosts) + "; ";
    }
    if (!warnings.empty()) s.properties.emplace_back("warning." + check, warnings);
    if (blocking)
      c.failure = JunitCase::Failure{check + ": " + std::to_string(blocking) + " blocking difference(s)", "preflight",
                                     blocking_text};
    s.cases.push_back(std::move(c));
  }
  return s;
}

}  // namespace tt
