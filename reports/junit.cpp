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

std::string junit_xml(const RunRecord& r) {
  int failures = 0;
  for (const auto& c : r.checks) failures += !c.passed;
  const std::string tests = std::to_string(r.checks.size());
  const std::string failed = std::to_string(failures);
  const std::string classname = "traintwin." + r.scenario;

  std::ostringstream os;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  os << "<testsuites" << attr("name", "traintwin") << attr("tests", tests) << attr("failures", failed)
     << attr("errors", "0") << attr("time", "0") << ">\n";
  os << "  <testsuite" << attr("name", r.scenario) << attr("tests", tests) << attr("failures", failed)
     << attr("errors", "0") << attr("skipped", "0") << attr("time", "0") << ">\n";
  os << "    <properties>\n";
  auto property = [&](std::string_view name, std::string_view value) {
    os << "      <property" << attr("name", name) << attr("value", value) << "/>\n";
  };
  property("scenario_file", r.scenario_file);
  property("seed", std::to_string(r.seed));
  property("driver", r.driver);
  for (const auto& [k, v] : r.driver_info) property("driver." + k, v);
  property("simulated_end_s", format_number(r.end_time.value));
  property("gpu_utilization", format_number(r.gpu_utilization));
  property("goodput", format_number(r.goodput));
  os << "    </properties>\n";
  for (const auto& c : r.checks) {
    os << "    <testcase" << attr("classname", classname) << attr("name", c.name) << attr("time", "0");
    if (c.passed) {
      os << "/>\n";
      continue;
    }
    os << ">\n      <failure" << attr("message", c.message) << attr("type", "check") << ">"
       << xml_escape_text(failure_text(c)) << "</failure>\n    </testcase>\n";
  }
  os << "  </testsuite>\n</testsuites>\n";
  return os.str();
}

}  // namespace tt
