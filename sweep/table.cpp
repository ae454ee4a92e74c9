#include "sweep/table.hpp"

#include <cstdio>

#include "core/io/reader_support.hpp"
#include "core/model/units.hpp"
#include "sweep/result_file.hpp"

namespace tt::sweep {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

bool Table::complete() const {
  for (const Row& r : rows)
    if (r.failed || r.missing) return false;
  return true;
}

std::optional<double> axis_value(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  if (v.is_string()) {
    if (auto s = parse_seconds(v.get<std::string>())) return s->value;
    if (auto b = parse_bandwidth(v.get<std::string>())) return b->value;
    if (auto b = parse_bytes(v.get<std::string>())) return b->value;
  }
  return std::nullopt;
}

Table collect(const SweepSpec& spec, const fs::path& dir) {
  Table t;
  for (const Point& p : grid(spec)) {
    Row row;
    row.point = p;
    std::vector<std::vector<double>> values(spec.figures.size());
    for (std::uint64_t seed : spec.seeds) {
      auto r = read_result(spec, p, seed, dir);
      if (!r) {
        ++row.missing;
        continue;
      }
      ++row.runs;
      if (r->status != RunStatus::Ok) {
        ++row.failed;
        continue;
      }
      for (std::size_t f = 0; f < spec.figures.size(); ++f)
        if (auto v = r->figures[spec.figures[f].name]) values[f].push_back(*v);
    }
    for (const auto& v : values) row.figures.push_back(mean_interval(v, spec.confidence));
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string table_csv(const SweepSpec& spec, const Table& t) {
  std::string out = "point";
  for (const auto& p : spec.parameters) out += "," + csv_cell(p.label);
  out += ",runs,failed,missing";
  for (const auto& f : spec.figures)
    for (const char* s : {"_n", "_mean", "_low", "_high", "_sd"}) out += "," + csv_cell(f.name + s);
  out += "\n";
  for (const Row& r : t.rows) {
    out += std::to_string(r.point.index);
    for (std::size_t k = 0; k < spec.parameters.size(); ++k)
      out += "," + csv_cell(reader::str_of(spec.parameters[k].values[r.point.value_index[k]]));
    out += "," + std::to_string(r.runs) + "," + std::to_string(r.failed) + "," + std::to_string(r.missing);
    for (const auto& i : r.figures) {
      if (!i) {
        out += ",0,,,,";
        continue;
      }
      out += "," + std::to_string(i->n) + "," + num(i->mean) + "," + num(i->low) + "," + num(i->high) + "," + num(i->sd);
    }
    out += "\n";
  }
  return out;
}

json table_json(const SweepSpec& spec, const Table& t) {
  json params = json::array(), figures = json::array(), rows = json::array();
  for (const auto& p : spec.parameters) params.push_back({{"label", p.label}, {"pointer", p.pointer}});
  for (const auto& f : spec.figures) figures.push_back({{"name", f.name}, {"duration", f.duration}});
  for (const Row& r : t.rows) {
    json values = json::object(), figs = json::object();
    for (std::size_t k = 0; k < spec.parameters.size(); ++k)
      values[spec.parameters[k].label] = spec.parameters[k].values[r.point.value_index[k]];
    for (std::size_t f = 0; f < spec.figures.size(); ++f) {
      const auto& i = r.figures[f];
      figs[spec.figures[f].name] =
          i ? json{{"n", i->n}, {"mean", i->mean}, {"low", i->low}, {"high", i->high}, {"sd", i->sd}} : json(nullptr);
    }
    rows.push_back({{"point", r.point.index}, {"values", values}, {"runs", r.runs}, {"failed", r.failed},
                    {"missing", r.missing}, {"figures", figs}});
  }
  json seeds = spec.seeds;
  return {{"sweep", spec.name},
          {"seeds", seeds},
          {"confidence", spec.confidence},
          {"interval", "Student t on the mean over seeds: mean +- t(1-(1-c)/2, n-1) x sd / sqrt(n)"},
          {"parameters", params},
          {"figures", figures},
          {"rows", rows}};
}

void write_tables(const SweepSpec& spec, const Table& t, const fs::path& dir) {
  write_atomically(dir / "table.csv", table_csv(spec, t));
  write_atomically(dir / "table.json", table_json(spec, t).dump(1) + "\n");
  write_atomically(dir / "sweep.html", curves_html(spec, t));
}

}  // namespace tt::sweep
