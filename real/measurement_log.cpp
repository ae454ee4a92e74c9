#include "real/measurement_log.hpp"

#include <fcntl.h>

#include <nlohmann/json.hpp>

#include "real/training.hpp"
#include "real/worker.hpp"

namespace tt::real {

MeasurementLog::MeasurementLog(const std::filesystem::path& run_dir)
    : path_((run_dir / "measurements.jsonl").string()) {
  fd_ = Fd(::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
  if (!fd_) throw_errno("open " + path_);
}

void MeasurementLog::line(const std::string& text) {
  if (!fd_) return;
  const std::string l = text + "\n";
  write_all(fd_.get(), l.data(), l.size(), path_);
}

void MeasurementLog::launch(const WorkerConfig& c, const std::string& provider, double time_scale) {
  const std::int64_t bytes = c.workload.params * static_cast<std::int64_t>(sizeof(float));
  line(nlohmann::json{{"event", "launch"},
                      {"job", c.job},
                      {"name", c.job_name},
                      {"attempt", c.attempt},
                      {"world", c.world},
                      {"compute", c.compute},
                      {"provider", provider},
                      {"heads", c.workload.heads},
                      {"seq", c.workload.seq},
                      {"head_dim", c.workload.head_dim},
                      {"params", c.workload.params},
                      {"allreduce_bytes", bytes},
                      {"checkpoint_bytes", encoded_state_bytes(c.workload.params)},
                      {"pace_seconds", c.pace_seconds},
                      {"time_scale", time_scale}}
           .dump());
}

void MeasurementLog::phase(int job, int attempt, int rank, std::int64_t iteration, const char* phase, double seconds) {
  line(nlohmann::json{{"event", "phase"},
                      {"job", job},
                      {"attempt", attempt},
                      {"rank", rank},
                      {"iteration", iteration},
                      {"phase", phase},
                      {"seconds", seconds}}
           .dump());
}

}  // namespace tt::real
