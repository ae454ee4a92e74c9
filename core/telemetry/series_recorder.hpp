// SeriesRecorder: samples chosen series of a registry into a table, one row per sample. Its size is bounded: past
// `max_rows` rows every other row is dropped and the stride doubles; a caller that samples every step() (interval x
// stride) then takes O(max_rows x log(run / (max_rows x interval))) samples in all, so a month-long run costs little
// more than a day. Absent values are NaN.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/model/units.hpp"
#include "core/telemetry/registry.hpp"

namespace tt {

struct TelemetrySeries {
  Seconds interval;                  // between samples
  int stride = 1;                    // the recording step is interval x stride (doubled at each thinning)
  std::vector<std::string> columns;  // series names, metric{label="value",...}
  std::vector<Seconds> times;
  std::vector<std::vector<double>> rows;  // rows[i][column]
};

class SeriesRecorder {
 public:
  SeriesRecorder(const MetricRegistry& registry, std::vector<SeriesId> recorded, Seconds interval,
                 std::size_t max_rows);
  // One row; `last` (the end of the run) is never thinned away.
  void sample(const MetricRegistry& registry, Seconds now, bool last = false);
  Seconds step() const { return data_.interval * static_cast<double>(data_.stride); }
  const TelemetrySeries& data() const { return data_; }

 private:
  std::vector<SeriesId> recorded_;
  std::size_t max_rows_;
  TelemetrySeries data_;
};

}  // namespace tt
