#include "reports/junit.hpp"

#include <sstream>

#include "reports/text.hpp"

namespace tt {
namespace {

std::string attr(std::string_view name, std::string_view value) {
  std::string out(" ");
  out.append(name).append("=\"").append(xml_escape(value)).append("\"");
  return out;
}

std::string failure_text(const CheckResult& c) {
  std::ostringstream os;
  os << "metric: " << c.metric << "\n";
  if (!c.job.empty()) os << "job: " << c.job << "\n";
  os << "expected: " << c.op << " " << format_number(c.threshold) << "\n";
  os << "measured: " << (c.measured ? format_number(*c.measured) : std::string("(absent)")) << "\n";
  return os.str();
}

}  // namespace

std::string junit_suite_xml(const JunitSuite& s) {
  int failures = 0;
  for (const auto& c : s.cases) failures += c.failure.has_value();
  const std::string tests = std::to_string(s.cases.size());
  const std::string failed = std::to_string(failures);

  std::ostringstream os;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  os << "<testsuites" << attr("name", "traintwin") << attr("tests", tests) << attr("failures", failed)
     << attr("errors", "0") << attr("time", "0") << ">\n";
  os << "  <testsuite" << attr("name", s.name) << attr("tests", tests) << attr("failures", failed)
     << attr("errors", "0") << attr("skipped", "0") << attr("time", "0") << ">\n";
  os << "    <properties>\n";
  for (const auto& [name, value] : s.properties)
    os << "      <property" << attr("name", name) << attr("value", value) << "/>\n";
  os << "    </properties>\n";
  for (const auto& c : s.cases) {
    os << "    <testcase" << attr("classname", c.classname) << attr("name", c.name) << attr("time", "0");
    if (!c.failure) {
      os << "/>\n";
      continue;
    }
    os << ">\n      <failure" << attr("message", c.failure->message) << attr("type", c.failure->type) << ">"
       << xml_escape_text(c.failure->text) << "</failure>\n    </testcase>\n";
  }
  os << "  </testsuite>\n</testsuites>\n";
  return os.str();
}

std::string junit_xml(const RunRecord& r) {
  JunitSuite s;
  s.name = r.scenario;
  s.properties = {{"scenario_file", r.scenario_file}, {"seed", std::to_string(r.seed)}, {"driver", r.driver}};
  for (const auto& [k, v] : r.driver_info) s.properties.emplace_back("driver." + k, v);
  s.properties.emplace_back("simulated_end_s", format_number(r.end_time.value));
  s.properties.emplace_back("gpu_utilization", format_number(r.gpu_utilization));
  s.properties.emplace_back("goodput", format_number(r.goodput));
  for (const auto& c : r.checks) {
    JunitCase jc{"traintwin." + r.scenario, c.name, std::nullopt};
    if (!c.passed) jc.failure = JunitCase::Failure{c.message, "check", failure_text(c)};
    s.cases.push_back(std::move(jc));
  }
  if (r.rollout) {  // one testcase per rollout step: a failed analysis fails it, with its evidence
    s.properties.emplace_back("rollout.outcome", r.rollout->outcome);
    for (const auto& st : r.rollout->steps) {
      JunitCase jc{"traintwin." + r.scenario + ".rollout",
                   "step " + std::to_string(st.step + 1) + " (" + std::to_string(st.nodes) + " nodes): " +
                       (st.outcome.empty() ? "undecided" : st.outcome),
                   std::nullopt};
      std::string text;
      bool failed = false;
      for (const auto& v : st.verdicts) {
        text += v.evidence + "\n";
        failed = failed || !v.passed;
      }
      if (failed) jc.failure = JunitCase::Failure{"canary analysis failed: " + st.outcome, "rollout", text};
      s.cases.push_back(std::move(jc));
    }
  }
  return junit_suite_xml(s);
}

}  // namespace tt
