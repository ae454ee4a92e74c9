// HTML view of a RunRecord (report.html): one self-contained page, inline CSS and SVG, no scripts and no network
// fetches. Header figures, cluster GPU allocation and queue depth over time, a per-node Gantt with failures,
// detection, checkpoints and restarts, a goodput/ETTR table per job, check results and the decision log (in the
// fleet view, reports/fleet.hpp, without the waiting jobs' reason changes, which decisions.txt keeps). Laid out for a
// 1400 px wide window; every record string is escaped. Deterministic: same record, same bytes.
#pragma once

#include <ostream>
#include <string>

#include "core/control/run_record.hpp"

namespace tt {

std::string report_html(const RunRecord& record);
void write_report_html(std::ostream& out, const RunRecord& record);  // the same page, written as it is made

}  // namespace tt
