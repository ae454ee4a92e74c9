// The rollout timeline of the HTML report (docs/rollout.md, "Report"): only when the run had a rollout. One lane per
// step on the run's time axis (drain and reimage, then the observation window, ending in the step's verdict), the
// rollback's drain and reimage after a failed step, and a table of the steps with each metric's evidence. Deterministic.
#pragma once

#include <string>

#include "core/control/run_record.hpp"

namespace tt {

// "" when the record has no rollout; else one <section id="rollout"> with an inline <svg> and a table.
std::string rollout_html_section(const RunRecord& record);

}  // namespace tt
