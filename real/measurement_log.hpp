// MeasurementLog: RUN_DIR/measurements.jsonl, what the real workers measured, for `traintwin calibrate --from-run`
// (core/calib/cpu_twin.hpp reads it; docs/calibration.md). One JSON object per line, each written with one write(2)
// in append mode (a resumed run appends; a killed driver leaves whole lines):
//   {"event":"launch","job":J,"name":N,"attempt":A,"world":W,"compute":C,"provider":P,"heads":H,"seq":S,
//    "head_dim":D,"params":F,"allreduce_bytes":B,"checkpoint_bytes":K,"pace_seconds":X,"time_scale":T}
//   {"event":"phase","job":J,"attempt":A,"rank":R,"iteration":I,"phase":"compute|allreduce|update|iteration|
//    checkpoint","seconds":X}
// Seconds are real (not scaled by the time scale) and measured before any pacing sleep, except "iteration": rank 0's
// whole iteration, pacing included, as the Progress message reports it. Keys are written sorted.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "real/sys.hpp"

namespace tt::real {

struct WorkerConfig;

class MeasurementLog {
 public:
  MeasurementLog() = default;
  explicit MeasurementLog(const std::filesystem::path& run_dir);  // opens RUN_DIR/measurements.jsonl (0600, append)
  // The job's shape as its workers run it (`c` is rank 0's configuration).
  void launch(const WorkerConfig& c, const std::string& provider, double time_scale);
  void phase(int job, int attempt, int rank, std::int64_t iteration, const char* phase, double seconds);

 private:
  void line(const std::string& text);
  Fd fd_;
  std::string path_;
};

}  // namespace tt::real
