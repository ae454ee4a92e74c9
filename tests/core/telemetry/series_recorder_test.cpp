#include "core/telemetry/series_recorder.hpp"

#include <catch2/catch.hpp>
#include <cmath>

using namespace tt;

TEST_CASE("series recorder: bounded rows, every kept row a multiple of the stride, the last one kept",
          "[unit][telemetry]") {
  MetricRegistry r;
  SeriesId up = r.add(metric::kGpusUp, {});
  SeriesId alive = r.add(metric::kJobAlive, {{"job_name", "j"}, {"queue", "q"}});
  SeriesRecorder rec(r, {up, alive}, Seconds(60), 10);
  for (int k = 0; k < 1000; ++k) {
    r.set(up, k);
    rec.sample(r, Seconds(60.0 * k));
  }
  r.set(up, -1);
  rec.sample(r, Seconds(60.0 * 1000 + 7), /*last=*/true);
  const TelemetrySeries& d = rec.data();
  CHECK(d.columns == std::vector<std::string>{"traintwin_gpus_up", "traintwin_job_alive{job_name=\"j\",queue=\"q\"}"});
  CHECK(d.rows.size() <= 11);
  CHECK(d.stride == 128);  // 1000 samples into at most 10 rows: doubled until they fit
  for (std::size_t i = 0; i + 1 < d.rows.size(); ++i) {
    CHECK(static_cast<long long>(d.rows[i][0]) % d.stride == 0);
    CHECK(d.times[i] == Seconds(60 * d.rows[i][0]));
    CHECK(std::isnan(d.rows[i][1]));  // never set: absent
  }
  CHECK(d.rows.back()[0] == -1);
  CHECK(d.times.back() == Seconds(60007));
}
