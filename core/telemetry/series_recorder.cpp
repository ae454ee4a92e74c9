#include "core/telemetry/series_recorder.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/telemetry/exposition.hpp"

namespace tt {

SeriesRecorder::SeriesRecorder(const MetricRegistry& registry, std::vector<SeriesId> recorded, Seconds interval,
                               std::size_t max_rows)
    : recorded_(std::move(recorded)), max_rows_(std::max<std::size_t>(max_rows, 2)) {
  data_.interval = interval;
  for (SeriesId id : recorded_)
    data_.columns.push_back(series_name(registry.families()[id.family].info->name, registry.series(id).labels));
}

void SeriesRecorder::sample(const MetricRegistry& registry, Seconds now, bool last) {
  if (!data_.times.empty() && data_.times.back() == now) {  // a second sample at the same time replaces the first
    data_.times.pop_back();
    data_.rows.pop_back();
  }
  std::vector<double> row;
  row.reserve(recorded_.size());
  for (SeriesId id : recorded_)
    row.push_back(registry.present(id) ? registry.value(id) : std::numeric_limits<double>::quiet_NaN());
  data_.times.push_back(now);
  data_.rows.push_back(std::move(row));
  if (data_.rows.size() <= max_rows_ || last) return;
  std::size_t w = 0;
  for (std::size_t r = 0; r < data_.rows.size(); r += 2, ++w) {
    if (r == w) continue;  // a vector moved onto itself is left empty
    data_.times[w] = data_.times[r];
    data_.rows[w] = std::move(data_.rows[r]);
  }
  data_.times.resize(w);
  data_.rows.resize(w);
  data_.stride *= 2;
}

}  // namespace tt
