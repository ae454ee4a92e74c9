// Views of an acceptance checklist (core/accept/checklist.hpp): JUnit XML with one testcase per item (its measured
// value, expectation and evidence in the testcase's properties and system-out; a failure carries why), JSON, a
// self-contained HTML page and terminal text; and of an acceptance plan and a judged nccl-tests log. Pure functions;
// deterministic for the same input.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/accept/checklist.hpp"
#include "core/accept/comm_judge.hpp"
#include "core/accept/plan.hpp"

namespace tt {

std::string accept_junit_xml(const accept::Checklist& c);
nlohmann::json accept_json(const accept::Checklist& c);
std::string accept_html(const accept::Checklist& c);
std::string accept_text(const accept::Checklist& c);

// The plan as a table: busbw expected and threshold per size with its false-failure rate, then the times.
std::string plan_text(const accept::AcceptPlan& p);
// One line per planned size: expected, threshold, measured, OK or FAILED with the row it came from.
std::string comm_verdict_text(const accept::CommVerdict& v);
nlohmann::json comm_verdict_json(const accept::CommVerdict& v);

// Writes DIR/accept.junit.xml, DIR/accept.json and DIR/accept.html; returns their names joined by ", ".
std::string write_accept_files(const accept::Checklist& c, const std::string& dir);

}  // namespace tt
