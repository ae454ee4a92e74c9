// nccl-tests' text output. Layout as NVIDIA/nccl-tests prints it (src/common.cu, src/util.cu: writeDeviceReport,
// writeResultHeader, writeBenchmarkLine*, writeResultFooter), older releases included (no root column, "error"
// instead of "#wrong", "bytes N type op ... res").
#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "core/calib/measurement.hpp"
#include "core/calib/text_support.hpp"

namespace tt {
namespace {

using calib::fail_line;
using calib::split_ws;
using calib::starts_with;
using calib::to_integer;
using calib::to_number;
using calib::trim;

// An MPI launcher's line prefix: Open MPI --tag-output "[1,0]<stdout>:", Slurm srun --label "0: ", MPICH / Intel MPI
// -prepend-rank "[0] ".
std::string_view strip_launcher(std::string_view s) {
  if (starts_with(s, "[")) {
    const auto close = s.find(']');
    if (close != std::string_view::npos) {
      std::string_view inside = s.substr(1, close - 1);
      std::string_view rest = s.substr(close + 1);
      const bool digits = !inside.empty() && std::all_of(inside.begin(), inside.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) || c == ',';
      });
      if (digits) {
        if (starts_with(rest, "<stdout>:") || starts_with(rest, "<stderr>:")) return rest.substr(9);
        if (starts_with(rest, " ")) return rest.substr(1);
      }
    }
  }
  std::size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  std::size_t j = i;
  while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
  if (j > i && j < s.size() && s[j] == ':' && (j + 1 == s.size() || s[j + 1] == ' '))
    return s.substr(std::min(s.size(), j + 2));
  return s;
}

bool nccl_debug_line(std::string_view s) {
  return s.find(" NCCL INFO") != std::string_view::npos || s.find(" NCCL WARN") != std::string_view::npos ||
         s.find(" NCCL TRACE") != std::string_view::npos;
}

// The columns of one result table, as its header names them.
struct Columns {
  std::size_t count = 0;  // tokens a row has
  int size = -1, elements = -1, root = -1;
  struct Group {
    int time = -1, algbw = -1, busbw = -1, wrong = -1;
    bool wrong_is_count = true;  // "#wrong" counts wrong elements; older releases' "error" / "res" is a max error
  };
  std::vector<Group> groups;  // out-of-place, then in-place
};

std::optional<Columns> header_columns(const std::vector<std::string>& names) {
  if (names.empty() || (names[0] != "size" && names[0] != "bytes")) return std::nullopt;
  Columns c;
  c.count = names.size();
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    const int at = static_cast<int>(i);
    if (n == "size" || n == "bytes") c.size = at;
    else if (n == "count" || n == "N") c.elements = at;
    else if (n == "root") c.root = at;
    else if (n == "time" || n == "cputime") c.groups.push_back({at, -1, -1, -1});
    else if (!c.groups.empty() && n == "algbw") c.groups.back().algbw = at;
    else if (!c.groups.empty() && n == "busbw") c.groups.back().busbw = at;
    else if (!c.groups.empty() && (n == "#wrong" || n == "error" || n == "res")) {
      c.groups.back().wrong = at;
      c.groups.back().wrong_is_count = n == "#wrong";
    }
    else if (n == "timestamp") ++c.count;  // printed as a date and a time
  }
  if (c.groups.empty() || c.groups.size() > 2) return std::nullopt;
  for (const auto& g : c.groups)
    if (g.algbw < 0 || g.busbw < 0) return std::nullopt;
  return c;
}

struct Section {
  std::optional<Collective> collective;
  std::set<std::string> hosts;
  int ranks = 0;
  std::optional<Columns> columns;
  std::size_t header_line = 0;
  std::size_t rows = 0;
  bool footer = false;
};

}  // namespace

std::vector<Measurement> parse_nccl_tests_text(const std::string& text, const std::string& file) {
  const auto lines = calib::split_lines(text);
  std::vector<Measurement> out;
  Section s;
  bool any_table = false;
  const std::string header_hint =
      "an nccl-tests result table: a '#  size  count  type  redop  root  time  algbw  busbw  #wrong ...' header";
  auto close = [&](std::size_t line) {
    if (s.columns && s.rows == 0)
      fail_line(file, s.header_line, "result rows under this table header (none before line " + std::to_string(line) + ")");
  };
  for (std::size_t ln = 1; ln <= lines.size(); ++ln) {
    const std::string_view t = trim(strip_launcher(lines[ln - 1]));
    if (t.empty() || nccl_debug_line(t)) continue;
    if (t[0] == '#') {
      const std::string_view body = trim(t.substr(1));
      if (starts_with(body, "Collective test starting:") || (starts_with(body, "nThread ") && (s.columns || s.rows))) {
        close(ln);
        const bool program_line = starts_with(body, "Collective test starting:");
        std::optional<Collective> keep = program_line ? std::nullopt : s.collective;
        s = Section{};
        s.collective = keep;
        if (program_line) {
          const std::string program(trim(body.substr(std::string_view("Collective test starting:").size())));
          s.collective = calib::collective_from_name(program);
          if (!s.collective)
            fail_line(file, ln,
                      "an nccl-tests program of a collective the twin models (all_reduce_perf, all_gather_perf, "
                      "reduce_scatter_perf, broadcast_perf, reduce_perf, alltoall_perf, sendrecv_perf), found \"" +
                          program + "\"");
        }
        continue;
      }
      const auto words = split_ws(body);
      if (!words.empty() && words[0] == "Rank" && words.size() >= 8) {
        // "#  Rank  3 Group  0 Pid  12345 on host-a device  3 [0000:1b:00] NVIDIA H100 80GB HBM3"
        const auto rank = to_integer(words[1]);
        if (!rank || *rank < 0 || words[2] != "Group" || words[4] != "Pid" || words[6] != "on")
          fail_line(file, ln, "a device line '#  Rank R Group G Pid P on HOST device D [bus] NAME'");
        s.ranks = std::max(s.ranks, static_cast<int>(*rank) + 1);
        s.hosts.insert(words[7]);
        continue;
      }
      if (auto cols = header_columns(words)) {
        close(ln);
        s.columns = cols;
        s.header_line = ln;
        s.rows = 0;
        s.footer = false;
        any_table = true;
        if (!s.collective) s.collective = calib::collective_in_file_name(file);
        if (!s.collective)
          fail_line(file, ln,
                    "the collective this table measures: a '# Collective test starting: all_reduce_perf' line above "
                    "it, or a file name that names one collective (all_reduce, all_gather, reduce_scatter, ...)");
        continue;
      }
      if (!words.empty() && !s.footer && s.columns && s.rows > 0 && words[0] == "Avg") {
        // "# Avg bus bandwidth    : 123.456 OK"
        const auto colon = body.find(':');
        const auto value = colon == std::string_view::npos ? std::vector<std::string>{} : split_ws(body.substr(colon + 1));
        if (body.find("bus bandwidth") == std::string_view::npos || value.empty() || !to_number(value[0]))
          fail_line(file, ln, "the footer '# Avg bus bandwidth : <GB/s>'");
        s.footer = true;
      }
      continue;  // any other comment: the run's banner, devices, units row, "Out of bounds values"
    }
    if (!s.columns || s.footer)
      fail_line(file, ln,
                std::string(s.footer ? "no result row after the '# Avg bus bandwidth' footer" : header_hint) +
                    " before result rows, a '#' comment or an NCCL debug line; found \"" + std::string(t) + "\"");
    const Columns& c = *s.columns;
    const auto tok = split_ws(t);
    if (tok.size() != c.count)
      fail_line(file, ln,
                "a result row of " + std::to_string(c.count) + " columns as the header on line " +
                    std::to_string(s.header_line) + " names them, found " + std::to_string(tok.size()));
    const auto size = to_integer(tok[c.size]);
    if (!size || *size < 0)
      fail_line(file, ln, "a result row starting with its size in bytes (a whole number), found \"" + std::string(t) + "\"");
    if (c.elements >= 0 && (!to_integer(tok[c.elements]) || *to_integer(tok[c.elements]) < 0))
      fail_line(file, ln, "an element count (a whole number), found \"" + tok[c.elements] + "\"");
    if (c.root >= 0 && (!to_integer(tok[c.root]) || *to_integer(tok[c.root]) < -1))
      fail_line(file, ln, "a root rank (-1 or more), found \"" + tok[c.root] + "\"");
    ++s.rows;
    for (std::size_t g = 0; g < c.groups.size(); ++g) {
      const auto& grp = c.groups[g];
      const auto time = to_number(tok[grp.time]);
      const auto algbw = to_number(tok[grp.algbw]);
      const auto busbw = to_number(tok[grp.busbw]);
      if (!time || *time < 0) fail_line(file, ln, "a time in microseconds, found \"" + tok[grp.time] + "\"");
      if (!algbw || *algbw < 0) fail_line(file, ln, "an algbw in GB/s, found \"" + tok[grp.algbw] + "\"");
      if (!busbw || *busbw < 0) fail_line(file, ln, "a busbw in GB/s, found \"" + tok[grp.busbw] + "\"");
      if (grp.wrong >= 0 && tok[grp.wrong] != "N/A") {
        const auto wrong = to_number(tok[grp.wrong]);
        if (!wrong) fail_line(file, ln, "a count of wrong elements or N/A, found \"" + tok[grp.wrong] + "\"");
        if (*wrong > 0 && grp.wrong_is_count)
          fail_line(file, ln,
                    "0 wrong elements, found " + tok[grp.wrong] + ": the run failed its data check, so its times are "
                    "not a measurement of a working collective");
      }
      if (*size == 0) continue;
      if (*time <= 0) fail_line(file, ln, "a time greater than zero for " + tok[c.size] + " bytes");
      // algbw = size / time (GB/s from bytes and microseconds), as printed with two decimals.
      const double expected = static_cast<double>(*size) / (*time * 1e3);
      if (std::abs(*algbw - expected) > 0.011 + 0.03 * expected)
        fail_line(file, ln,
                  "algbw = size / time (" + std::to_string(expected) + " GB/s from the row's size and time), found " +
                      tok[grp.algbw] + ": the columns do not read as nccl-tests writes them");
      Measurement m;
      m.collective = *s.collective;
      m.ranks = s.ranks;
      m.nodes = static_cast<int>(s.hosts.size());
      m.size = Bytes(static_cast<double>(*size));
      m.time = Seconds(*time * 1e-6);
      m.in_place = g == 1;
      m.where = file + ":" + std::to_string(ln);
      out.push_back(std::move(m));
    }
  }
  close(lines.size() + 1);
  if (!any_table) fail_line(file, lines.empty() ? 1 : lines.size(), header_hint + ": this file has none");
  return out;
}

}  // namespace tt
