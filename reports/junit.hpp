// JUnit XML for CI (Jenkins, GitLab). junit_suite_xml writes one <testsuite> of test cases, each passed or carrying a
// <failure> with its message and text; junit_xml(RunRecord) is the view of a run: one testcase per scenario check
// (classname "traintwin.<scenario>"), a failure carrying the expected and measured values. All text is XML-escaped.
// Deterministic: same input, same bytes.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/control/run_record.hpp"

namespace tt {

struct JunitCase {
  std::string classname;
  std::string name;
  struct Failure {
    std::string message;
    std::string type;
    std::string text;
  };
  std::optional<Failure> failure;
};

struct JunitSuite {
  std::string name;
  std::vector<std::pair<std::string, std::string>> properties;
  std::vector<JunitCase> cases;
};

std::string junit_suite_xml(const JunitSuite& suite);
std::string junit_xml(const RunRecord& record);

}  // namespace tt
