// SeriesRecorder: samples chosen series of a registry into a table with one row per kept sample. Its size is bounded:
// past `max_rows` rows every other row is dropped and the stride (samples per kept row) doubles, so a month-long run
// keeps as many rows as a short one, at a coarser step. Absent values are NaN.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/model/units.hpp"
#include "core/telemetry/registry.hpp"

namespace tt {

struct TelemetrySeries {
  Seconds interval;                  // between samples
  int stride = 1;                    // samples per kept row (a kept row is every stride-th sample)
  std::vector<std::string> columns;  // series names, metric{label="value",...}
  std::vector<Seconds> times;
  std::vector<std::vector<double>> rows;  // rows[i][column]
};

class SeriesRecorder {
 public:
  SeriesRecorder(const MetricRegistry& registry, std::vector<SeriesId> recorded, Seconds interval,
                 std::size_t max_rows);
  // One sample; `last` keeps it whatever the stride (the end of the run).
  void sample(const MetricRegistry& registry, Seconds now, bool last = false);
  const TelemetrySeries& data() const { return data_; }

 private:
  std::vector<SeriesId> recorded_;
  std::size_t max_rows_;
  long long samples_ = 0;
  TelemetrySeries data_;
};

}  // namespace tt
