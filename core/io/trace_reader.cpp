#include "core/io/trace_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "core/io/input_error.hpp"

namespace tt {
namespace trace_field {
namespace {

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (the era-based method of H. Hinnant's "chrono-
// Compatible Low-Level Date Algorithms").
long days_from_civil(long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long>(doe) - 719468;
}

// The n-digit number at `at`, or -1 when the characters there are not n digits.
int digits(const std::string& s, std::size_t at, std::size_t n) {
  if (at + n > s.size()) return -1;
  int v = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

}  // namespace

// Bad input throws once, at the end, with what was expected: no exception inside (an import of a trace with many
// refused rows, and the fuzzer, pay for each one).
double timestamp(const std::string& s) {
  auto bad = [&]() -> double {
    throw std::invalid_argument("a time \"YYYY-MM-DD HH:MM:SS\" (or with 'T', and an offset \"+08:00\"), found \"" + s +
                                "\"");
  };
  // YYYY-MM-DD?HH:MM:SS[+HH:MM|Z]
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':')
    return bad();
  const int y = digits(s, 0, 4), mo = digits(s, 5, 2), d = digits(s, 8, 2);
  const int h = digits(s, 11, 2), mi = digits(s, 14, 2), sec = digits(s, 17, 2);
  if (y < 0 || h < 0 || mi < 0 || sec < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
    return bad();
  double offset = 0;
  if (s.size() == 20 && s[19] == 'Z') {
  } else if (s.size() == 25 && (s[19] == '+' || s[19] == '-') && s[22] == ':') {
    const int oh = digits(s, 20, 2), om = digits(s, 23, 2);
    if (oh < 0 || om < 0) return bad();
    offset = (oh * 3600.0 + om * 60.0) * (s[19] == '-' ? -1 : 1);
  } else if (s.size() != 19) {
    return bad();
  }
  return static_cast<double>(days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d))) * 86400.0 +
         h * 3600.0 + mi * 60.0 + sec - offset;
}

int count(const std::string& s) {
  long v = -1;
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || ptr != end || v < 0 || v > 1000000)
    throw std::invalid_argument("a count, an integer >= 0, found \"" + s + "\"");
  return static_cast<int>(v);
}

std::optional<double> slurm_duration(const std::string& s) {
  if (s == "UNLIMITED" || s == "Partition_Limit" || s.empty()) return std::nullopt;
  const std::string bad = "a Slurm time limit ([D-]HH:MM:SS, MM:SS, MM or UNLIMITED), found \"" + s + "\"";
  double days = 0;
  std::string rest = s;
  if (auto dash = s.find('-'); dash != std::string::npos) {
    try {
      days = count(s.substr(0, dash));
    } catch (const std::invalid_argument&) {
      throw std::invalid_argument(bad);
    }
    rest = s.substr(dash + 1);
  }
  std::vector<std::string> parts = split(rest, ':');
  std::vector<double> v;
  for (const auto& p : parts) {
    try {
      v.push_back(count(p));
    } catch (const std::invalid_argument&) {
      throw std::invalid_argument(bad);
    }
  }
  const bool with_days = s.find('-') != std::string::npos;
  double secs = 0;
  if (with_days) {  // D-HH, D-HH:MM, D-HH:MM:SS
    if (v.empty() || v.size() > 3) throw std::invalid_argument(bad);
    secs = v[0] * 3600 + (v.size() > 1 ? v[1] * 60 : 0) + (v.size() > 2 ? v[2] : 0);
  } else if (v.size() == 1) {
    secs = v[0] * 60;
  } else if (v.size() == 2) {
    secs = v[0] * 60 + v[1];
  } else if (v.size() == 3) {
    secs = v[0] * 3600 + v[1] * 60 + v[2];
  } else {
    throw std::invalid_argument(bad);
  }
  return days * 86400 + secs;
}

int tres_gpus(const std::string& s) {
  for (const std::string& item : split(s, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) {
      if (item.empty()) continue;
      throw std::invalid_argument("TRES as name=count pairs (\"cpu=64,gres/gpu=8\"), found \"" + s + "\"");
    }
    if (item.substr(0, eq) == "gres/gpu") return count(item.substr(eq + 1));
  }
  return 0;
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  for (std::size_t start = 0;;) {
    const std::size_t end = line.find(sep, start);
    if (end == std::string::npos) {
      out.emplace_back(line, start);
      return out;
    }
    out.emplace_back(line, start, end - start);
    start = end + 1;
  }
}

}  // namespace trace_field

std::optional<TraceFormat> trace_format(const std::string& name) {
  if (name == "sacct") return TraceFormat::Sacct;
  if (name == "acme") return TraceFormat::Acme;
  if (name == "helios") return TraceFormat::Helios;
  return std::nullopt;
}

namespace {

// Acme (trace_seren.csv, trace_kalos.csv) and Helios (cluster_log.csv): comma-separated with a header; the columns
// are found by name, so Kalos's extra columns are fine.
TraceRows read_csv_trace(const std::string& text, const std::string& file, TraceFormat format, bool skip_invalid) {
  const std::vector<std::string> needed =
      format == TraceFormat::Acme
          ? std::vector<std::string>{"job_id", "gpu_num", "type", "state", "submit_time", "start_time", "end_time"}
          : std::vector<std::string>{"job_id", "vc", "gpu_num", "state", "submit_time", "start_time", "end_time"};
  const char* what = format == TraceFormat::Acme ? "an Acme trace (trace_seren.csv or trace_kalos.csv)"
                                                 : "a Helios trace (cluster_log.csv)";
  TraceRows rows;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  std::map<std::string, std::size_t> col;
  std::vector<std::size_t> at_needed;  // the column of each of `needed`, in its order
  std::size_t columns = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::vector<std::string> f = trace_field::split(line, ',');
    if (col.empty()) {
      for (std::size_t i = 0; i < f.size(); ++i) col[f[i]] = i;
      columns = f.size();
      for (const auto& n : needed) {
        if (!col.count(n))
          throw InputError(file, "line " + std::to_string(line_no),
                           std::string("the header of ") + what + " with a column \"" + n + "\", found \"" + line +
                               "\"");
        at_needed.push_back(col[n]);
      }
      continue;
    }
    try {
      if (f.size() != columns)
        throw std::invalid_argument(std::to_string(columns) + " comma-separated fields as in the header, found " +
                                    std::to_string(f.size()));
      // `needed`'s order: job_id, then gpu_num and type (Acme) or vc and gpu_num (Helios), then state and the times
      const bool acme = format == TraceFormat::Acme;
      const std::string& gpu_num = f[at_needed[acme ? 1 : 2]];
      const std::string& start = f[at_needed[5]];
      const std::string& end = f[at_needed[6]];
      TraceJob j;
      j.id = f[at_needed[0]];
      j.queue = f[at_needed[acme ? 2 : 1]];
      j.state = f[at_needed[3]];
      j.gpus = trace_field::count(gpu_num);
      j.submit = trace_field::timestamp(f[at_needed[4]]);
      if (!start.empty()) j.start = trace_field::timestamp(start);
      if (!end.empty()) j.end = trace_field::timestamp(end);
      if (j.id.empty()) throw std::invalid_argument("a job_id");
      if (j.queue.empty()) throw std::invalid_argument(format == TraceFormat::Acme ? "a type" : "a vc");
      if (j.start && *j.start < j.submit) throw std::invalid_argument("start_time at or after submit_time");
      if (j.start && j.end && *j.end < *j.start) throw std::invalid_argument("end_time at or after start_time");
      j.line = line_no;
      rows.jobs.push_back(std::move(j));
    } catch (const std::invalid_argument& e) {
      if (!skip_invalid) throw InputError(file, "line " + std::to_string(line_no), e.what());
      rows.invalid.push_back(file + ":" + std::to_string(line_no) + ": " + e.what());
    }
  }
  if (col.empty()) throw InputError(file, "line 1", std::string("the header of ") + what);
  return rows;
}

}  // namespace

TraceRows read_trace_text(const std::string& text, const std::string& file, TraceFormat format, bool skip_invalid) {
  if (format == TraceFormat::Sacct) return read_sacct(text, file, skip_invalid);
  return read_csv_trace(text, file, format, skip_invalid);
}

TraceRows read_trace_file(const std::string& path, TraceFormat format, bool skip_invalid) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "a readable trace file");
  std::stringstream ss;
  ss << in.rdbuf();
  return read_trace_text(ss.str(), path, format, skip_invalid);
}

}  // namespace tt
