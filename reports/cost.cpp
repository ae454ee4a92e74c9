#include "reports/cost.hpp"

#include <sstream>

#include "reports/prometheus.hpp"
#include "reports/text.hpp"

namespace tt {

using json = nlohmann::json;

json cost_json(const cost::CostReport& c) {
  json jobs = json::array();
  for (const auto& j : c.jobs)
    jobs.push_back({{"name", j.name},
                    {"queue", j.queue},
                    {"gpu_hours", j.gpu_hours},
                    {"storage_gb_months", j.storage_gb_months},
                    {"traffic_gb", j.traffic_gb},
                    {"gpu", j.gpu},
                    {"storage", j.storage},
                    {"traffic", j.traffic},
                    {"total", j.total}});
  json sites = json::array();
  for (const auto& s : c.sites)
    sites.push_back({{"site", s.site},
                     {"billed_gpu_hours", s.billed_gpu_hours},
                     {"used_gpu_hours", s.used_gpu_hours},
                     {"idle_gpu_hours", s.idle_gpu_hours},
                     {"gpu", s.gpu},
                     {"idle", s.idle},
                     {"storage", s.storage},
                     {"traffic", s.traffic},
                     {"total", s.total}});
  json queues = json::object();
  for (const auto& [q, v] : c.queues) queues[q] = v;
  return {{"currency", c.currency},
          {"total", c.total},
          {"gpu", c.gpu},
          {"idle", c.idle},
          {"storage", c.storage},
          {"traffic", c.traffic},
          {"inter_site_traffic", c.inter_site_traffic},
          {"productive_gpu_hours", c.productive_gpu_hours},
          {"per_useful_gpu_hour", c.per_useful_gpu_hour ? json(*c.per_useful_gpu_hour) : json(nullptr)},
          {"sites", sites},
          {"queues", queues},
          {"jobs", jobs}};
}

std::string cost_html_section(const RunRecord& r) {
  if (!r.cost) return "";
  const auto& c = *r.cost;
  auto money = [&](double v) { return format_fixed(v, 2); };
  std::ostringstream os;
  os << "<section id=\"cost\"><h2>Cost</h2><p class=\"note\">In " << xml_escape(c.currency)
     << " (docs/cost.md): billed GPU capacity, checkpoints kept on storage, traffic to storage and between sites. "
        "Idle: billed GPU capacity no job held. Per useful GPU-hour: the total over productive GPU-hours ("
     << format_fixed(c.productive_gpu_hours, 1) << ").</p><p>Total <b>" << money(c.total) << "</b>; GPUs "
     << money(c.gpu) << " (idle " << money(c.idle) << "); storage " << money(c.storage) << "; traffic "
     << money(c.traffic) << " (between sites " << money(c.inter_site_traffic) << "); per useful GPU-hour "
     << (c.per_useful_gpu_hour ? money(*c.per_useful_gpu_hour) : std::string("\u2013")) << "</p>";
  os << "<table><thead><tr><th>Site</th><th class=\"num\">Billed GPU-h</th><th class=\"num\">Used GPU-h</th><th "
        "class=\"num\">GPUs</th><th class=\"num\">Idle</th><th class=\"num\">Storage</th><th class=\"num\">Traffic</th>"
        "<th class=\"num\">Total</th></tr></thead><tbody>";
  for (const auto& s : c.sites)
    os << "<tr><td>" << xml_escape(s.site) << "</td><td class=\"num\">" << format_fixed(s.billed_gpu_hours, 1)
       << "</td><td class=\"num\">" << format_fixed(s.used_gpu_hours, 1) << "</td><td class=\"num\">" << money(s.gpu)
       << "</td><td class=\"num\">" << money(s.idle) << "</td><td class=\"num\">" << money(s.storage)
       << "</td><td class=\"num\">" << money(s.traffic) << "</td><td class=\"num\">" << money(s.total) << "</td></tr>";
  os << "</tbody></table><table><thead><tr><th>Queue</th><th class=\"num\">Cost</th></tr></thead><tbody>";
  for (const auto& [q, v] : c.queues)
    os << "<tr><td>" << xml_escape(q) << "</td><td class=\"num\">" << money(v) << "</td></tr>";
  os << "</tbody></table><div class=\"wide\"><table><thead><tr><th>Job</th><th>Queue</th><th class=\"num\">GPU-h</th>"
        "<th class=\"num\">GPUs</th><th class=\"num\">Storage</th><th class=\"num\">Traffic</th><th "
        "class=\"num\">Total</th></tr></thead><tbody>";
  for (const auto& j : c.jobs)
    os << "<tr><td>" << xml_escape(j.name) << "</td><td>" << xml_escape(j.queue) << "</td><td class=\"num\">"
       << format_fixed(j.gpu_hours, 1) << "</td><td class=\"num\">" << money(j.gpu) << "</td><td class=\"num\">"
       << money(j.storage) << "</td><td class=\"num\">" << money(j.traffic) << "</td><td class=\"num\">"
       << money(j.total) << "</td></tr>";
  os << "</tbody></table></div></section>\n";
  return os.str();
}

std::string cost_prometheus(const RunRecord& r) {
  if (!r.cost) return "";
  const auto& c = *r.cost;
  std::string out;
  auto family = [&](const char* name, const char* help) {
    out += std::string("# HELP ") + name + " " + prometheus_help(help) + "\n# TYPE " + name + " gauge\n";
  };
  auto sample = [&](const char* name, const std::string& labels, double v) {
    out += std::string(name) + (labels.empty() ? "" : "{" + labels + "}") + " " + prometheus_number(v) + "\n";
  };
  auto label = [](const char* k, const std::string& v) { return std::string(k) + "=\"" + prometheus_label_value(v) + "\""; };
  const std::string cur = label("currency", c.currency);
  family("traintwin_cost_run", "What the run cost: billed GPU capacity, storage and traffic.");
  sample("traintwin_cost_run", cur, c.total);
  family("traintwin_cost_idle", "Cost of billed GPU capacity no job held.");
  sample("traintwin_cost_idle", cur, c.idle);
  family("traintwin_cost_per_useful_gpu_hour", "Cost / productive GPU-hours.");
  if (c.per_useful_gpu_hour) sample("traintwin_cost_per_useful_gpu_hour", cur, *c.per_useful_gpu_hour);
  family("traintwin_cost_site", "Cost of a site: its billed GPUs, storage and traffic to storage.");
  for (const auto& s : c.sites) sample("traintwin_cost_site", label("site", s.site) + "," + cur, s.total);
  family("traintwin_cost_site_idle_gpu_seconds", "Billed GPU-seconds of a site no job held.");
  for (const auto& s : c.sites)
    sample("traintwin_cost_site_idle_gpu_seconds", label("site", s.site), s.idle_gpu_hours * 3600);
  family("traintwin_cost_queue", "Cost of the jobs of a queue.");
  for (const auto& [q, v] : c.queues) sample("traintwin_cost_queue", label("queue", q) + "," + cur, v);
  family("traintwin_cost_job", "Cost of a job: GPU time held, its checkpoints' storage and traffic.");
  for (const auto& j : c.jobs)
    sample("traintwin_cost_job", label("job_name", j.name) + "," + label("queue", j.queue) + "," + cur, j.total);
  return out;
}

}  // namespace tt
