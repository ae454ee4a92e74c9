#include "reports/pools.hpp"

#include <algorithm>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "reports/svg.hpp"
#include "reports/text.hpp"

namespace tt {

using nlohmann::json;

json pools_json(const RunRecord& r) {
  json pools = json::array();
  for (const PoolRecord& p : r.pools) {
    json waits = json::array();
    double max_wait = 0, sum = 0;
    for (Seconds w : p.provision_waits) {
      waits.push_back(w.value);
      max_wait = std::max(max_wait, w.value);
      sum += w.value;
    }
    pools.push_back({{"name", p.name},
                     {"kind", p.kind},
                     {"min", p.min},
                     {"max", p.max},
                     {"scale_ups", p.provisions},
                     {"provisioned", p.provisioned},
                     {"scale_downs", p.releases},
                     {"peak_nodes", p.peak_nodes},
                     {"node_hours", p.node_hours},
                     {"provision_waits_s", waits},
                     {"provision_wait_max_s", max_wait},
                     {"provision_wait_mean_s", waits.empty() ? 0.0 : sum / static_cast<double>(waits.size())},
                     {"reclaim_notices", p.reclaim_notices},
                     {"reclaims", p.reclaims},
                     {"jobs_requeued", p.jobs_requeued},
                     {"checkpoints_in_notice", p.checkpoints_in_notice},
                     {"checkpoints_on_notice", p.checkpoints_on_notice},
                     {"reclaim_lost_gpu_hours", p.reclaim_lost_gpu_hours}});
  }
  json capacity = json::array();
  for (const CapacityInterval& c : r.capacity)
    capacity.push_back({{"node", c.node}, {"pool", c.pool}, {"price_kind", to_string(c.price_kind)},
                        {"price_per_gpu_hour", c.price_per_gpu_hour}, {"gpus", c.gpus}, {"start_s", c.start.value},
                        {"end_s", c.end.value}});
  return {{"pools", pools}, {"capacity", capacity}};
}

std::string pools_html_section(const RunRecord& r) {
  if (r.pools.empty()) return "";
  std::ostringstream os;
  os << "<section id=\"pools\"><h2>Node pools</h2><p class=\"note\">Each pool's scaling (docs/pools.md): nodes asked "
        "for (scale-ups) and given back idle (scale-downs), the wait from a request to the node taking work, spot "
        "reclaims and the jobs they requeued, and the work those lost (progress since the checkpoint and a "
        "restart).</p>";
  for (const PoolRecord& p : r.pools) {
    Seconds max_wait;
    for (Seconds w : p.provision_waits) max_wait = std::max(max_wait, w);
    auto row = [&](const char* what, const std::string& value) {
      os << "<tr><td>" << what << "</td><td class=\"num\">" << value << "</td></tr>";
    };
    os << "<h3>" << xml_escape(p.name) << " <small>(" << xml_escape(p.kind) << ")</small></h3><table><tbody>";
    row("nodes min / max", std::to_string(p.min) + " / " + std::to_string(p.max));
    row("peak nodes", std::to_string(p.peak_nodes));
    row("node-hours billed", format_fixed(p.node_hours, 2));
    if (p.kind != "fixed") {
      row("scale-ups / provisioned", std::to_string(p.provisions) + " / " + std::to_string(p.provisioned));
      row("scale-downs", std::to_string(p.releases));
      row("longest provisioning wait", p.provision_waits.empty() ? "\u2013" : format_duration(max_wait.value));
    }
    if (p.kind == "spot") {
      row("reclaim notices / reclaims", std::to_string(p.reclaim_notices) + " / " + std::to_string(p.reclaims));
      row("jobs requeued", std::to_string(p.jobs_requeued));
      row("of them stopped after a checkpoint within the notice", std::to_string(p.checkpoints_in_notice));
      row("on-demand checkpoints at a notice", std::to_string(p.checkpoints_on_notice));
      row("GPU-hours lost to reclaims", format_fixed(p.reclaim_lost_gpu_hours, 2));
    }
    os << "</tbody></table>";
  }
  // Nodes in service over time, per pool: +1 when a node takes work, -1 when it goes (CapacityInterval).
  static const char* const kColors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1"};
  std::vector<StepLine> lines;
  double top = 1;
  for (std::size_t i = 0; i < r.pools.size(); ++i) {
    std::vector<std::pair<Seconds, int>> steps;
    for (const CapacityInterval& c : r.capacity)
      if (c.pool == r.pools[i].name && c.in_service && *c.in_service < c.end) {
        steps.emplace_back(*c.in_service, 1);
        steps.emplace_back(c.end, -1);
      }
    std::sort(steps.begin(), steps.end());
    StepLine line{r.pools[i].name, kColors[i % std::size(kColors)], {{Seconds(0), 0.0}}, false, false};
    int nodes = 0;
    for (const auto& [t, d] : steps) {
      nodes += d;
      if (line.points.back().first == t) line.points.pop_back();
      line.points.emplace_back(t, nodes);
      top = std::max<double>(top, nodes);
    }
    lines.push_back(std::move(line));
  }
  os << "<h3>Nodes in service</h3><p class=\"note\">Per pool, nodes taking work (provisioned and not yet released "
        "or reclaimed).</p>"
     << step_chart_svg("nodes", lines, top, r.end_time) << "</section>\n";
  return os.str();
}

}  // namespace tt
