// The doctor: reads what a run left (report.json, events.jsonl, and where present the acceptance result accept.json
// and facts about the run directory) and names, for each symptom (a failed check, a failed launch, a long wait, a
// failed restore, a slow job, a failed acceptance item, missing metrics), the likely causes ranked with their
// evidence: communication setup (the preflight differences of the nodes involved: versions, port range, subnet),
// operator slow path (measured iteration or kernel figures against the expectation), queueing (quota, queue policy,
// fragmentation, capacity, with the single change that would have started the job), failed resume (which checkpoint
// failed its integrity check, permissions, storage availability) and missing metrics (the endpoint, the scrape, the
// exported file). Pure analysis of its input; the CLI (cli/cmd_doctor.cpp) gathers the files.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/control/run_record.hpp"
#include "core/model/units.hpp"

namespace tt {

enum class CauseKind { CommunicationSetup, OperatorSlowPath, Queueing, FailedResume, MissingMetrics };
const char* to_string(CauseKind k);  // "communication_setup", ...

struct Cause {
  CauseKind kind = CauseKind::Queueing;
  double score = 0;  // ranking weight in (0, 1]: how directly the evidence ties the cause to the symptom
  std::string summary{};
  std::vector<std::string> evidence{};
  std::string change{};  // the single change that would have avoided it, when the doctor can name one
};

struct Finding {
  std::string symptom;  // failed_check, failed_launch, long_wait, failed_restore, slow_job, failed_item, missing_metrics
  std::string subject;  // the check, job or item
  std::string what;
  std::vector<Cause> causes;  // highest score first
};

struct RunDirFacts {  // what the CLI found on disk; absent facts are not judged
  bool metrics_file = true;              // metrics.prom present with traintwin_ samples
  std::vector<std::string> checkpoint_problems;  // "run/job0-x/checkpoints: mode 0000, not readable by its owner"
};

struct DoctorInput {
  nlohmann::json report;                 // report.json
  std::optional<nlohmann::json> accept;  // accept.json, when the directory holds an acceptance result
  RunDirFacts facts;
  Seconds long_wait = Seconds(600);      // a wait longer than this is a symptom
  double slow_ratio = 1.25;              // measured / predicted iteration time above this is a symptom
};

struct Diagnosis {
  std::string run;
  std::vector<Finding> findings;
};

Diagnosis diagnose(const DoctorInput& in);
std::string diagnosis_text(const Diagnosis& d);
nlohmann::json diagnosis_json(const Diagnosis& d);
// The diagnosis of the record itself (no run-directory facts), as diagnose() gives it from the record's report.json.
Diagnosis diagnose_record(const RunRecord& record);
// The report.html section: diagnose_record's findings.
std::string doctor_html_section(const RunRecord& record);

}  // namespace tt
