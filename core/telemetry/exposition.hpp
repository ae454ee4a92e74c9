// Prometheus text exposition (format 0.0.4) of a MetricRegistry's current values: HELP and TYPE per family, then
// its present series. Used by the live endpoint of the real driver and by metrics.prom, so both expose the same
// names. Deterministic: families in catalogue order, series in the order they were declared.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/telemetry/registry.hpp"

namespace tt {

// Families named in `skip` are left out (a caller that writes them itself, with the same names).
std::string exposition_text(const MetricRegistry& registry, const std::vector<std::string_view>& skip = {});
// Escaping per the format: a label value escapes \ " and line feeds; HELP text escapes \ and line feeds.
std::string exposition_label_value(std::string_view text);
std::string exposition_help(std::string_view text);
// Shortest round-trip decimal; "NaN", "+Inf", "-Inf".
std::string exposition_number(double value);
// name{a="x",b="y"}, or the bare name without labels.
std::string series_name(std::string_view metric, const LabelSet& labels);

}  // namespace tt
