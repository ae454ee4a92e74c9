// MetricRegistry: the current value of every series of the metric catalogue (core/telemetry/metric_catalogue.hpp).
// Series are declared once (add) and then updated in O(1) through their id; a series may be absent (no value), and
// then it is neither exposed nor matched by an alert rule. Plain data: copyable, no backend, no clock.
#pragma once

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
  };
  struct Family {
    const metric::Info* info = nullptr;
    std::vector<Series> series;
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
  const Series& series(SeriesId id) const { return families_[id.family].series[id.index]; }

 private:
  std::vector<Family> families_;
};

}  // namespace tt
