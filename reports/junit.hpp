// JUnit XML view of a RunRecord, for CI (Jenkins, GitLab): one <testsuite> per run named after the scenario, one
// <testcase> per scenario check (classname "traintwin.<scenario>"), and a <failure> carrying the expected and measured
// values for each failed check. All text is XML-escaped. Deterministic: same record, same bytes.
#pragma once

#include <string>

#include "core/control/run_record.hpp"

namespace tt {

std::string junit_xml(const RunRecord& record);

}  // namespace tt
