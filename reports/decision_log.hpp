// decisions.txt: the RunRecord's decision log as stable text, one line per decision in record order, for golden
// files (tests/golden/) that `git diff` reads. A header names the scenario and the seed (not the driver: both drivers
// must take the same decisions); then "TIME  KIND  JOB  NODES  REASON" with TIME as h:mm:ss.mmm (rounded to the
// millisecond, so floating-point noise below it does not show), "-" for no job or no nodes, nodes comma-joined,
// control characters in any field turned into spaces. Deterministic: same record, same bytes.
#pragma once

#include <ostream>
#include <string>

#include "core/control/run_record.hpp"

namespace tt {

// One line, "\n" included: "     1:30:00.000  launch  pretrain-70b  n0,n1  placed on ...".
std::string decision_line(const Decision& decision);
std::string decision_log_text(const RunRecord& record);
void write_decision_log(std::ostream& out, const RunRecord& record);  // the same text, line by line

}  // namespace tt
