#include "core/telemetry/registry.hpp"

#include <cassert>

namespace tt {

MetricRegistry::MetricRegistry() {
  for (const auto& info : metric::catalogue()) families_.push_back(Family{&info, {}});
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

void MetricRegistry::set(SeriesId id, double value) {
  Series& s = families_[id.family].series[id.index];
  s.value = value;
  s.present = true;
}

void MetricRegistry::clear(SeriesId id) {
  Series& s = families_[id.family].series[id.index];
  s.value = 0;
  s.present = false;
}

bool MetricRegistry::present(SeriesId id) const { return series(id).present; }
double MetricRegistry::value(SeriesId id) const { return series(id).value; }

const MetricRegistry::Family* MetricRegistry::family(std::string_view name) const {
  for (const auto& f : families_)
    if (f.info->name == name) return &f;
  return nullptr;
}

}  // namespace tt
