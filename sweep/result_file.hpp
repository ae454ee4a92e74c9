// One run of a sweep (a point at a seed) and its result file DIR/runs/pNNNN-sSEED.json. A result file exists only
// once complete: it is written to a temporary name in the same directory and renamed (atomic on POSIX), so an
// interrupted sweep leaves either a whole result or none, and a resumed sweep keeps exactly the finished runs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/sweep/sweep_spec.hpp"

namespace tt::sweep {

enum class RunStatus { Ok, Error, Timeout, Crashed };  // Ok: the simulation ran (its checks may have failed)
const char* to_string(RunStatus s);

struct RunResult {
  int point = 0;
  std::uint64_t seed = 0;
  RunStatus status = RunStatus::Ok;
  int exit_code = 0;
  std::string message;                                   // why it failed (the run's last error line)
  std::map<std::string, std::optional<double>> figures;  // by figure name; nullopt: not measured in this run
};

std::filesystem::path result_path(const std::filesystem::path& dir, int point, std::uint64_t seed);
std::filesystem::path log_path(const std::filesystem::path& dir, int point, std::uint64_t seed);

// The result as JSON, with the point's values (so that a changed spec is noticed on resume).
nlohmann::json result_json(const SweepSpec& spec, const Point& p, const RunResult& r);
// Writes `doc` to `path` through a temporary file and a rename.
void write_atomically(const std::filesystem::path& path, const std::string& text);
// The stored result of this point and seed, when there is one made by the same values and figures; nullopt when
// absent or stale (a spec that changed since).
std::optional<RunResult> read_result(const SweepSpec& spec, const Point& p, std::uint64_t seed,
                                     const std::filesystem::path& dir);

// Runs one point at one seed in this process (SimGrid: once per process) and writes its result file.
// Returns the exit code of `traintwin run` for it (0 checks passed, 1 a check failed).
int run_point(const SweepSpec& spec, const Point& p, std::uint64_t seed, const std::filesystem::path& dir);

}  // namespace tt::sweep
