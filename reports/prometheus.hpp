// Prometheus text exposition (format 0.0.4) of a run's final figures (metrics.prom), for the node_exporter textfile
// collector or a Pushgateway. Every family has HELP and TYPE lines; names follow the Prometheus conventions (base
// units: seconds, ratios; counters end in _total), so GPU-hours are exported as GPU-seconds. Per-job series carry the
// labels job_name and queue (not "job", which Prometheus reserves for the scrape target); the scenario, driver and
// seed are on traintwin_run_info only. No timestamps: the values are the figures at the end of the run.
// Deterministic: same record, same bytes.
#pragma once

#include <string>
#include <string_view>

#include "core/control/run_record.hpp"

namespace tt {

std::string prometheus_text(const RunRecord& record);
// The scenario's alert rules as a Prometheus rule file (alerts.rules.yml, one group), their expressions in PromQL
// over the names of prometheus_text: `promtool check rules` accepts it, and a Prometheus scraping the real driver's
// endpoint can load it as is.
std::string prometheus_rules(const RunRecord& record);

// Escaping per the exposition format: a label value escapes \ " and line feeds; HELP text escapes \ and line feeds.
// Bytes that are not valid UTF-8 become U+FFFD.
std::string prometheus_label_value(std::string_view text);
std::string prometheus_help(std::string_view text);
// "1", "0.25", "NaN", "+Inf", "-Inf".
std::string prometheus_number(double value);

}  // namespace tt
