#include "core/telemetry/series_recorder.hpp"

#include <catch2/catch.hpp>
#include <cmath>

using namespace tt;

TEST_CASE("series recorder: bounded rows, a caller sampling every step() takes logarithmically many samples",
          "[unit][telemetry]") {
  MetricRegistry r;
  SeriesId up = r.add(metric::kGpusUp, {});
  SeriesId alive = r.add(metric::kJobAlive, {{"job_name", "j"}, {"queue", "q"}});
  SeriesRecorder rec(r, {up, alive}, Seconds(60), 10);
  long long samples = 0;
  const Seconds end(60.0 * 1000);
  for (Seconds t(0); t < end; t = rec.step() * (std::floor(t.value / rec.step().value) + 1)) {
    r.set(up, t.value / 60);
    rec.sample(r, t);
    ++samples;
  }
  r.set(up, -1);
  rec.sample(r, Seconds(60.0 * 1000 + 7), /*last=*/true);
  const TelemetrySeries& d = rec.data();
  CHECK(d.columns == std::vector<std::string>{"traintwin_gpus_up", "traintwin_job_alive{job_name=\"j\",queue=\"q\"}"});
  CHECK(d.rows.size() <= 11);
  CHECK(d.stride == 128);  // 1000 steps of 60 s into at most 10 rows: the step doubled until they fit
  CHECK(samples < 10 + 5 * 7);  // 10 at first, then about 5 per doubling, instead of 1000
  for (std::size_t i = 0; i + 1 < d.rows.size(); ++i) {
    CHECK(d.times[i] == Seconds(60 * d.rows[i][0]));
    CHECK(static_cast<long long>(d.rows[i][0]) % d.stride == 0);  // the kept rows lie on the current step
    CHECK(std::isnan(d.rows[i][1]));                               // never set: absent
  }
  CHECK(d.rows.back()[0] == -1);
  CHECK(d.times.back() == Seconds(60007));
}
