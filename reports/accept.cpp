#include "reports/accept.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "reports/events.hpp"
#include "reports/text.hpp"

namespace tt {

using accept::Checklist;
using accept::ItemResult;
using accept::Verdict;

namespace {

std::string gbps(BytesPerSecond b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", b.value / 1e9);
  return buf;
}
std::string rate(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2e", p);
  return buf;
}

}  // namespace

std::string accept_junit_xml(const Checklist& c) {
  int failures = 0, skipped = 0;
  for (const auto& r : c.items) {
    failures += r.verdict == Verdict::Failed;
    skipped += r.verdict == Verdict::Skipped;
  }
  std::ostringstream os;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"traintwin.accept\" tests=\""
     << c.items.size() << "\" failures=\"" << failures << "\" errors=\"0\" skipped=\"" << skipped << "\">\n"
     << "  <properties><property name=\"target\" value=\"" << xml_escape(c.target) << "\"/></properties>\n";
  for (const ItemResult& r : c.items) {
    os << "  <testcase classname=\"traintwin.accept\" name=\"" << accept::item_id(r.item) << "\">\n"
       << "    <properties>\n"
       << "      <property name=\"title\" value=\"" << xml_escape(accept::item_title(r.item)) << "\"/>\n"
       << "      <property name=\"measured\" value=\"" << xml_escape(r.measured) << "\"/>\n"
       << "      <property name=\"expected\" value=\"" << xml_escape(r.expected) << "\"/>\n"
       << "    </properties>\n";
    if (r.verdict == Verdict::Failed)
      os << "    <failure message=\"" << xml_escape(r.failure) << "\" type=\"acceptance\">"
         << xml_escape_text("measured: " + r.measured + "\nexpected: " + r.expected) << "</failure>\n";
    if (r.verdict == Verdict::Skipped) os << "    <skipped message=\"" << xml_escape(r.failure) << "\"/>\n";
    os << "    <system-out>" << xml_escape_text(r.evidence) << "</system-out>\n  </testcase>\n";
  }
  os << "</testsuite>\n</testsuites>\n";
  return os.str();
}

nlohmann::json accept_json(const Checklist& c) {
  nlohmann::json j = {{"target", c.target},
                      {"passed", c.passed()},
                      {"failed_items", c.failed_items()},
                      {"items", nlohmann::json::array()}};
  for (const auto& r : c.items)
    j["items"].push_back({{"item", accept::item_id(r.item)},
                          {"title", accept::item_title(r.item)},
                          {"verdict", accept::to_string(r.verdict)},
                          {"measured", r.measured},
                          {"expected", r.expected},
                          {"evidence", r.evidence},
                          {"failure", r.failure}});
  return j;
}

std::string accept_html(const Checklist& c) {
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>traintwin accept</title><style>"
        "body{font:14px system-ui,sans-serif;margin:24px;max-width:1300px}table{border-collapse:collapse;width:100%}"
        "td,th{border:1px solid #ccc;padding:6px;vertical-align:top;text-align:left}pre{margin:0;white-space:pre-wrap}"
        ".passed{color:#166534}.failed{color:#b91c1c;font-weight:bold}.skipped{color:#92400e}</style></head><body>\n"
     << "<h1>Acceptance: " << (c.passed() ? "passed" : "FAILED") << "</h1><p>" << xml_escape(c.target) << "</p>\n"
     << "<table><thead><tr><th>item</th><th>verdict</th><th>measured</th><th>expected</th><th>evidence</th></tr>"
        "</thead><tbody>\n";
  for (const auto& r : c.items) {
    const char* v = accept::to_string(r.verdict);
    os << "<tr><td><b>" << accept::item_id(r.item) << "</b><br>" << xml_escape(accept::item_title(r.item))
       << "</td><td class=\"" << v << "\">" << v
       << (r.failure.empty() ? "" : "<br>" + xml_escape(r.failure)) << "</td><td>" << xml_escape(r.measured)
       << "</td><td>" << xml_escape(r.expected) << "</td><td><pre>" << xml_escape_text(r.evidence)
       << "</pre></td></tr>\n";
  }
  os << "</tbody></table></body></html>\n";
  return os.str();
}

std::string accept_text(const Checklist& c) {
  std::ostringstream os;
  os << "# traintwin accept: " << c.target << "\n";
  for (const auto& r : c.items) {
    char line[96];
    std::snprintf(line, sizeof line, "  %-14s %-8s ", accept::item_id(r.item),
                  r.verdict == Verdict::Passed ? "OK" : r.verdict == Verdict::Failed ? "FAILED" : "SKIPPED");
    os << line << r.measured << " (expected " << r.expected << ")"
       << (r.failure.empty() ? "" : ": " + one_line(r.failure)) << "\n";
  }
  const auto failed = c.failed_items();
  os << "# Items: " << c.items.size() << ", failed " << failed.size();
  for (std::size_t i = 0; i < failed.size(); ++i) os << (i ? ", " : " (") << failed[i] << (i + 1 == failed.size() ? ")" : "");
  os << ": " << (c.passed() ? "OK" : "FAILED") << "\n";
  return os.str();
}

std::string plan_text(const accept::AcceptPlan& p) {
  std::ostringstream os;
  os << "# acceptance plan: all_reduce over " << p.ranks << " ranks on " << p.nodes << " node(s) of " << p.topology
     << "\n# expected: " << p.model << "\n# comm noise: sigma " << format_fixed(p.comm_noise.sigma, 4) << ", "
     << p.comm_noise.source << "\n# time noise: sigma " << format_fixed(p.time_noise.sigma, 4) << ", "
     << p.time_noise.source << "\n# target false-failure rate per threshold: " << rate(p.target_false_failure)
     << "\n";
  char line[160];
  std::snprintf(line, sizeof line, "# %12s %14s %14s %12s\n", "size(B)", "busbw(GB/s)", "pass>=(GB/s)", "false-fail");
  os << line;
  for (const auto& c : p.comm) {
    std::snprintf(line, sizeof line, "  %12lld %14s %14s %12s\n", static_cast<long long>(c.size.value),
                  gbps(c.busbw).c_str(), gbps(c.threshold).c_str(), rate(c.false_failure).c_str());
    os << line;
  }
  if (!p.times.empty()) {
    std::snprintf(line, sizeof line, "# %-14s %-20s %12s %12s %12s  %s\n", "item", "metric", "expected(s)", "pass<=(s)",
                  "false-fail", "source");
    os << line;
    for (const auto& t : p.times) {
      std::snprintf(line, sizeof line, "  %-14s %-20s %12s %12s %12s  ", t.item.c_str(), t.metric.c_str(),
                    format_fixed(t.expected.value, 3).c_str(), format_fixed(t.threshold.value, 3).c_str(),
                    rate(t.false_failure).c_str());
      os << line << t.source << "\n";
    }
  }
  os << "# false-failure rate of the whole plan (any threshold, independent): " << rate(p.false_failure_any()) << "\n";
  return os.str();
}

std::string comm_verdict_text(const accept::CommVerdict& v) {
  std::ostringstream os;
  char line[256];
  std::snprintf(line, sizeof line, "# %12s %14s %14s %14s %8s  %s\n", "size(B)", "expected", "pass>=", "measured",
                "status", "slowest row");
  os << line;
  for (const auto& s : v.sizes) {
    std::snprintf(line, sizeof line, "  %12lld %14s %14s %14s %8s  %s\n", static_cast<long long>(s.size.value),
                  gbps(s.expected).c_str(), gbps(s.threshold).c_str(),
                  s.measured ? gbps(*s.measured).c_str() : "absent", s.passed ? "OK" : "FAILED", s.where.c_str());
    os << line;
  }
  if (!v.unplanned.empty()) os << "# " << v.unplanned.size() << " row(s) of sizes the plan does not cover, ignored\n";
  const auto failed = v.failed_sizes();
  os << "# Sizes: " << v.sizes.size() << ", failed " << failed.size();
  for (std::size_t i = 0; i < failed.size(); ++i) os << (i ? ", " : " (") << failed[i] << (i + 1 == failed.size() ? ")" : "");
  os << ": " << (v.passed() ? "OK" : "FAILED") << "\n";
  return os.str();
}

nlohmann::json comm_verdict_json(const accept::CommVerdict& v) {
  nlohmann::json j = {{"passed", v.passed()}, {"failed_sizes", v.failed_sizes()}, {"sizes", nlohmann::json::array()},
                      {"unplanned_rows", v.unplanned}};
  for (const auto& s : v.sizes)
    j["sizes"].push_back({{"size_bytes", static_cast<long long>(s.size.value)},
                          {"expected_gbps", s.expected.value / 1e9},
                          {"threshold_gbps", s.threshold.value / 1e9},
                          {"measured_gbps", s.measured ? nlohmann::json(s.measured->value / 1e9) : nlohmann::json()},
                          {"passed", s.passed},
                          {"where", s.where}});
  return j;
}

std::string write_accept_files(const Checklist& c, const std::string& dir) {
  std::filesystem::create_directories(dir);
  auto put = [&](const char* name, const std::string& text) {
    const auto path = std::filesystem::path(dir) / name;
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path.string());
  };
  put("accept.junit.xml", accept_junit_xml(c));
  put("accept.json", accept_json(c).dump(2) + "\n");
  put("accept.html", accept_html(c));
  return "accept.junit.xml, accept.json, accept.html";
}

}  // namespace tt
