// Views of a fleet verdict (core/preflight/verdict.hpp): a terminal report (groups, differences with the failure each
// leads to, an OK/BLOCKED footer), JSON (the same content, for tools) and a JUnit suite (one testcase per check; a
// check with a blocking difference fails, warnings ride in the properties). Deterministic: same verdict, same bytes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/preflight/verdict.hpp"
#include "reports/junit.hpp"

namespace tt {

std::string preflight_text(const preflight::Verdict& v);
nlohmann::json preflight_json(const preflight::Verdict& v);
JunitSuite preflight_junit(const preflight::Verdict& v);

}  // namespace tt
