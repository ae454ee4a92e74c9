#include "core/telemetry/exposition.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace tt {
namespace {

std::string escape(std::string_view text, bool quotes) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '"' && quotes)
      out += "\\\"";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string exposition_label_value(std::string_view text) { return escape(text, true); }
std::string exposition_help(std::string_view text) { return escape(text, false); }

std::string exposition_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return "0";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

std::string series_name(std::string_view metric, const LabelSet& labels) {
  std::string out(metric);
  if (labels.empty()) return out;
  out += '{';
  for (std::size_t i = 0; i < labels.size(); ++i)
    out += (i ? "," : "") + labels[i].first + "=\"" + exposition_label_value(labels[i].second) + '"';
  out += '}';
  return out;
}

std::string exposition_text(const MetricRegistry& registry, const std::vector<std::string_view>& skip) {
  std::string out;
  for (const auto& fam : registry.families()) {
    if (std::find(skip.begin(), skip.end(), fam.info->name) != skip.end()) continue;
    bool header = false;
    for (const auto& s : fam.series) {
      if (!s.present) continue;
      if (!header) {
        out += "# HELP " + std::string(fam.info->name) + " " + exposition_help(fam.info->help) + "\n";
        out += "# TYPE " + std::string(fam.info->name) + " " + metric::to_string(fam.info->type) + "\n";
        header = true;
      }
      out += series_name(fam.info->name, s.labels) + " " + exposition_number(s.value) + "\n";
    }
  }
  return out;
}

}  // namespace tt
