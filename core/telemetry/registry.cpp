#include "core/telemetry/registry.hpp"

#include <cassert>

namespace tt {

MetricRegistry::MetricRegistry() {
  for (const auto& info : metric::catalogue()) families_.push_back(Family{&info, {}, {}});
}

SeriesId MetricRegistry::add(std::string_view name, LabelSet labels) {
  for (std::size_t f = 0; f < families_.size(); ++f) {
    Family& fam = families_[f];
    if (fam.info->name != name) continue;
    assert(labels.size() == fam.info->labels.size());
    for (std::size_t i = 0; i < labels.size(); ++i) assert(labels[i].first == fam.info->labels[i]);
    fam.series.push_back(Series{std::move(labels), 0, false});
    return SeriesId{static_cast<int>(f), static_cast<int>(fam.series.size()) - 1};
  }
  assert(!"metric not in the catalogue");
  return {};
}

void MetricRegistry::touch(SeriesId id, Series& s) {
  ++updates_;
  if (s.changed) return;
  s.changed = true;
  std::vector<int>& changes = families_[id.family].changes;
  if (changes.empty()) changed_families_.push_back(id.family);
  changes.push_back(id.index);
}

void MetricRegistry::set(SeriesId id, double value) {
  Series& s = families_[id.family].series[id.index];
  if (s.present && s.value == value) return;
  s.value = value;
  s.present = true;
  touch(id, s);
}

void MetricRegistry::clear(SeriesId id) {
  Series& s = families_[id.family].series[id.index];
  if (!s.present) return;
  s.value = 0;
  s.present = false;
  touch(id, s);
}

void MetricRegistry::clear_changes() {
  for (int f : changed_families_) {
    Family& fam = families_[f];
    for (int i : fam.changes) fam.series[i].changed = false;
    fam.changes.clear();
  }
  changed_families_.clear();
}

bool MetricRegistry::present(SeriesId id) const { return series(id).present; }
double MetricRegistry::value(SeriesId id) const { return series(id).value; }

const MetricRegistry::Family* MetricRegistry::family(std::string_view name) const {
  const int f = family_index(name);
  return f < 0 ? nullptr : &families_[f];
}

int MetricRegistry::family_index(std::string_view name) const {
  for (std::size_t f = 0; f < families_.size(); ++f)
    if (families_[f].info->name == name) return static_cast<int>(f);
  return -1;
}

}  // namespace tt
