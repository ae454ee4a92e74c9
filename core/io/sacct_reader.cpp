// `sacct --parsable2 --allocations --format=JobID,Partition,QOS,Submit,Start,End,Timelimit,State,AllocTRES,ReqTRES`:
// '|'-separated, one header line naming exactly these fields in this order, one line per job allocation.
#include <stdexcept>

#include "core/io/input_error.hpp"
#include "core/io/trace_reader.hpp"

namespace tt {
namespace {

const std::vector<std::string> kFields = {"JobID", "Partition", "QOS",   "Submit",    "Start",
                                          "End",   "Timelimit", "State", "AllocTRES", "ReqTRES"};

std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

std::optional<double> opt_time(const std::string& s) {
  if (s == "Unknown" || s == "None" || s.empty()) return std::nullopt;
  return trace_field::timestamp(s);
}

}  // namespace

TraceRows read_sacct(const std::string& text, const std::string& file, bool skip_invalid) {
  TraceRows rows;
  std::size_t at = 0;
  int line_no = 0;
  bool header = false;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(at, nl - at);
    at = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::vector<std::string> f = trace_field::split(line, '|');
    if (!header) {
      if (f != kFields)
        throw InputError(file, "line " + std::to_string(line_no),
                         "the header of `sacct --parsable2 --format=" + joined(kFields, ",") + "`, found \"" + line +
                             "\"");
      header = true;
      continue;
    }
    try {
      if (f.size() != kFields.size())
        throw std::invalid_argument(std::to_string(kFields.size()) + " '|'-separated fields, found " +
                                    std::to_string(f.size()));
      if (f[0].find('.') != std::string::npos) continue;  // a job step ("123.batch"): its allocation has the line
      TraceJob j;
      j.id = f[0];
      j.queue = f[1];
      j.qos = f[2];
      j.submit = trace_field::timestamp(f[3]);
      j.start = opt_time(f[4]);
      j.end = opt_time(f[5]);
      j.time_limit = trace_field::slurm_duration(f[6]);
      j.state = f[7].substr(0, f[7].find(' '));  // "CANCELLED by 1000"
      j.gpus = f[8].empty() ? trace_field::tres_gpus(f[9]) : trace_field::tres_gpus(f[8]);
      if (j.queue.empty()) throw std::invalid_argument("a partition");
      if (j.start && *j.start < j.submit) throw std::invalid_argument("Start at or after Submit");
      if (j.start && j.end && *j.end < *j.start) throw std::invalid_argument("End at or after Start");
      j.line = line_no;
      rows.jobs.push_back(std::move(j));
    } catch (const std::invalid_argument& e) {
      const std::string why = "line " + std::to_string(line_no);
      if (!skip_invalid) throw InputError(file, why, e.what());
      rows.invalid.push_back(file + ":" + std::to_string(line_no) + ": " + e.what());
    }
  }
  if (!header) throw InputError(file, "line 1", "the header of `sacct --parsable2 --format=" + joined(kFields, ",") + "`");
  return rows;
}

}  // namespace tt
