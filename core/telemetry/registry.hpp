// MetricRegistry: the current value of every series of the metric catalogue (core/telemetry/metric_catalogue.hpp).
// Series are declared once (add) and then updated in O(1) through their id; a series may be absent (no value), and
// then it is neither exposed nor matched by an alert rule. Each family lists the series whose value or presence changed
// since the last clear_changes(), so that a reader (the alert evaluator) does work per change, not per series.
// Plain data: copyable, no backend, no clock.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/telemetry/metric_catalogue.hpp"

namespace tt {

using LabelSet = std::vector<std::pair<std::string, std::string>>;  // in the family's label order

struct SeriesId {
  int family = -1;
  int index = -1;
  bool valid() const { return family >= 0; }
};

class MetricRegistry {
 public:
  struct Series {
    LabelSet labels;
    double value = 0;
    bool present = false;
    bool changed = false;  // listed in its family's `changes`
  };
  struct Family {
    const metric::Info* info = nullptr;
    std::vector<Series> series;
    std::vector<int> changes;  // indices into `series` changed since clear_changes(), each once, in order of change
  };

  MetricRegistry();  // one family per catalogue entry, in catalogue order, with no series

  // Declares a series (absent until set). The metric must be in the catalogue and the labels must name the family's
  // labels in order; violations are programming errors (asserted), since names come from code, not from input.
  SeriesId add(std::string_view metric, LabelSet labels);
  void set(SeriesId id, double value);
  void clear(SeriesId id);  // absent
  bool present(SeriesId id) const;
  double value(SeriesId id) const;

  const std::vector<Family>& families() const { return families_; }
  const Family* family(std::string_view metric) const;
  int family_index(std::string_view metric) const;  // -1 when not in the catalogue
  void clear_changes();
  // set() and clear() calls that changed a value or a presence, since construction: a work counter for bench/regress.
  std::uint64_t updates() const { return updates_; }
  const Series& series(SeriesId id) const { return families_[id.family].series[id.index]; }

 private:
  std::vector<Family> families_;
  std::vector<int> changed_families_;  // families with a non-empty `changes`
  std::uint64_t updates_ = 0;
  void touch(SeriesId id, Series& s);
};

}  // namespace tt
