#include "reports/decision_log.hpp"

#include <algorithm>
#include <sstream>

#include "reports/events.hpp"

namespace tt {
namespace {

// Times right-aligned to a fixed width (not the widest time of the log), so that one decision moving past 100 hours
// changes its own line only.
constexpr std::size_t kTimeWidth = 12;

std::string joined(const std::vector<std::string>& nodes) {
  if (nodes.empty()) return "-";
  std::string out;
  for (const auto& n : nodes) out += (out.empty() ? "" : ",") + n;
  return out;
}

}  // namespace

std::string decision_line(const Decision& d) {
  std::string time = format_clock(d.t);
  std::string line = std::string(kTimeWidth - std::min(kTimeWidth, time.size()), ' ') + time;
  line += "  " + one_line(d.kind) + "  " + (d.job.empty() ? "-" : one_line(d.job)) + "  " + one_line(joined(d.nodes));
  if (!d.reason.empty()) line += "  " + one_line(d.reason);
  return line + "\n";
}

void write_decision_log(std::ostream& out, const RunRecord& record) {
  out << "# traintwin decision log: scenario " << one_line(record.scenario) << ", seed " << record.seed << ", "
      << record.decisions.size() << " decisions\n";
  out << "# time (h:mm:ss.mmm)  kind  job  nodes  reason\n";
  for (const auto& d : record.decisions) out << decision_line(d);
}

std::string decision_log_text(const RunRecord& record) {
  std::ostringstream out;
  write_decision_log(out, record);
  return out.str();
}

}  // namespace tt
