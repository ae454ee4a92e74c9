// Readers of real workload traces into one neutral shape, TraceJob: Slurm accounting (`sacct --parsable2`, the fixed
// field list of docs/sweeps.md), Shanghai AI Lab's Acme traces (trace_seren.csv / trace_kalos.csv) and SenseTime's
// Helios traces (cluster_log.csv), from the columns their repositories document. A malformed row is an InputError
// naming the file and its line, unless `skip_invalid`: then it is left out and listed in `invalid`.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tt {

enum class TraceFormat { Sacct, Acme, Helios };
std::optional<TraceFormat> trace_format(const std::string& name);  // "sacct", "acme", "helios"

struct TraceJob {
  std::string id;
  std::string queue;  // sacct: the partition; Helios: the virtual cluster; Acme: the workload type
  std::string qos;    // sacct only
  std::string state;  // COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, ...
  double submit = 0;  // seconds since the Unix epoch (UTC)
  std::optional<double> start, end;  // absent: the job never started (or never ended)
  std::optional<double> time_limit;  // seconds; sacct only (absent: UNLIMITED or not given)
  int gpus = 0;
  int line = 0;  // in the file
};

struct TraceRows {
  std::vector<TraceJob> jobs;
  std::vector<std::string> invalid;  // "file:line: why", when skipped
};

TraceRows read_trace_file(const std::string& path, TraceFormat format, bool skip_invalid);
TraceRows read_trace_text(const std::string& text, const std::string& file, TraceFormat format, bool skip_invalid);

// Shared by the readers (core/io/sacct_reader.cpp, trace_reader.cpp): each throws std::invalid_argument with what was
// expected.
namespace trace_field {
// "2024-03-01T10:00:00" or "2024-03-01 10:00:00", optionally "+08:00" / "Z"; as UTC when no offset is written.
double timestamp(const std::string& s);
int count(const std::string& s);  // an integer >= 0
// Slurm's time limit: "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS" or "MM"; nullopt for UNLIMITED and
// Partition_Limit.
std::optional<double> slurm_duration(const std::string& s);
// "billing=8,cpu=64,gres/gpu=8,mem=512G,node=1": the gres/gpu count (0 when absent).
int tres_gpus(const std::string& s);
std::vector<std::string> split(const std::string& line, char sep);
}  // namespace trace_field

TraceRows read_sacct(const std::string& text, const std::string& file, bool skip_invalid);

}  // namespace tt
