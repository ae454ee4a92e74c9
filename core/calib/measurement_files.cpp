// NCCL's tuner measurement CSV, published bus-bandwidth tables, and the choice of reader by content.
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "core/calib/measurement.hpp"
#include "core/calib/text_support.hpp"

namespace tt {
namespace {

using calib::fail_line;
using calib::split_csv;
using calib::starts_with;
using calib::to_integer;
using calib::to_number;
using calib::trim;

// ext-tuner/example/nccl_tuner.conf spells algorithms and protocols in lower case; the twin models four and three.
std::optional<Algorithm> tuner_algorithm(const std::string& s) {
  if (s == "ring") return Algorithm::Ring;
  if (s == "tree") return Algorithm::Tree;
  if (s == "nvls") return Algorithm::Nvls;
  if (s == "nvls_tree") return Algorithm::NvlsTree;
  return std::nullopt;
}

std::optional<Protocol> tuner_protocol(const std::string& s) {
  if (s == "ll") return Protocol::LL;
  if (s == "ll128") return Protocol::LL128;
  if (s == "simple") return Protocol::Simple;
  return std::nullopt;
}

const std::vector<std::string> kTunerColumns = {"collective", "size_bytes", "algorithm", "protocol",
                                                "channels",   "nodes",      "ranks",     "pipeOps",
                                                "regBuff",    "bandwidth_gbps", "latency_us"};

int whole(const std::string& file, std::size_t ln, const std::string& name, const std::string& v, long long min) {
  const auto i = to_integer(v);
  if (!i || *i < min || *i > 1'000'000'000)
    fail_line(file, ln, name + ": a whole number from " + std::to_string(min) + ", found \"" + v + "\"");
  return static_cast<int>(*i);
}

}  // namespace

double busbw_factor(Collective c, int ranks) {
  const double n = ranks;
  switch (c) {
    case Collective::AllReduce: return 2 * (n - 1) / n;
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::AllToAll: return (n - 1) / n;
    default: return 1;
  }
}

std::vector<Measurement> parse_tuner_csv(const std::string& text, const std::string& file) {
  const auto lines = calib::split_lines(text);
  std::vector<int> col;  // kTunerColumns[i] is at field col[i]
  std::size_t fields = 0;
  std::vector<Measurement> out;
  for (std::size_t ln = 1; ln <= lines.size(); ++ln) {
    const std::string_view t = trim(lines[ln - 1]);
    if (t.empty() || t[0] == '#') continue;
    const auto f = split_csv(t);
    if (col.empty()) {
      fields = f.size();
      for (const std::string& name : kTunerColumns) {
        const auto at = std::find(f.begin(), f.end(), name);
        if (at == f.end())
          fail_line(file, ln,
                    "the tuner measurement CSV header (collective,size_bytes,algorithm,protocol,channels,nodes,ranks,"
                    "pipeOps,regBuff,bandwidth_gbps,latency_us); column \"" + name + "\" is missing");
        col.push_back(static_cast<int>(at - f.begin()));
      }
      continue;
    }
    if (f.size() != fields)
      fail_line(file, ln,
                std::to_string(fields) + " comma-separated fields as the header has, found " + std::to_string(f.size()));
    auto field = [&](int i) { return f[static_cast<std::size_t>(col[static_cast<std::size_t>(i)])]; };
    Measurement m;
    const auto c = calib::collective_from_name(field(0));
    if (!c) fail_line(file, ln, "collective: allreduce, allgather, reducescatter, broadcast or reduce, found \"" + field(0) + "\"");
    m.collective = *c;
    const auto size = to_integer(field(1));
    if (!size || *size <= 0) fail_line(file, ln, "size_bytes: a whole number greater than zero, found \"" + field(1) + "\"");
    m.size = Bytes(static_cast<double>(*size));
    m.algorithm = tuner_algorithm(field(2));
    if (!m.algorithm) fail_line(file, ln, "algorithm: one the twin models (ring, tree, nvls, nvls_tree), found \"" + field(2) + "\"");
    m.protocol = tuner_protocol(field(3));
    if (!m.protocol) fail_line(file, ln, "protocol: ll, ll128 or simple, found \"" + field(3) + "\"");
    whole(file, ln, "channels", field(4), -1);
    m.nodes = whole(file, ln, "nodes", field(5), 1);
    m.ranks = whole(file, ln, "ranks", field(6), 2);
    if (m.ranks < m.nodes) fail_line(file, ln, "ranks: at least one per node (" + field(5) + " nodes), found " + field(6));
    whole(file, ln, "pipeOps", field(7), -1);
    whole(file, ln, "regBuff", field(8), -1);
    const auto bw = to_number(field(9));
    if (!bw || *bw < 0) fail_line(file, ln, "bandwidth_gbps: a number from 0, found \"" + field(9) + "\"");
    const auto lat = to_number(field(10));
    if (!lat || *lat <= 0)
      fail_line(file, ln, "latency_us: the time of one call in microseconds, greater than zero, found \"" + field(10) + "\"");
    m.time = Seconds(*lat * 1e-6);
    m.where = file + ":" + std::to_string(ln);
    out.push_back(std::move(m));
  }
  if (col.empty()) fail_line(file, lines.size() + 1, "the tuner measurement CSV header; the file has no rows");
  if (out.empty()) fail_line(file, lines.size() + 1, "at least one measurement row under the header");
  return out;
}

std::vector<Measurement> parse_busbw_table(const std::string& text, const std::string& file) {
  const auto lines = calib::split_lines(text);
  std::map<std::string, std::pair<std::string, std::size_t>> meta;  // key -> value, line
  bool header = false;
  bool by_time = false;  // "size,time_us": the time of one call; "size,busbw_GBps": the bus bandwidth
  std::vector<Measurement> out;
  Measurement proto;
  for (std::size_t ln = 1; ln <= lines.size(); ++ln) {
    const std::string_view t = trim(lines[ln - 1]);
    if (t.empty()) continue;
    if (t[0] == '#') {
      const std::string_view body = trim(t.substr(1));
      const auto colon = body.find(':');
      if (!header && colon != std::string_view::npos && colon > 0 && body.substr(0, colon).find(' ') == std::string_view::npos)
        meta[std::string(body.substr(0, colon))] = {std::string(trim(body.substr(colon + 1))), ln};
      continue;
    }
    if (!header) {
      if (t != "size,busbw_GBps" && t != "size,time_us")
        fail_line(file, ln, "the header \"size,busbw_GBps\" or \"size,time_us\" after the '# key: value' lines");
      header = true;
      by_time = t == "size,time_us";
      for (const char* key : {"source", "collective", "ranks", "nodes"})
        if (!meta.count(key)) fail_line(file, ln, std::string("a '# ") + key + ": ...' line above the header");
      const auto& [cname, cline] = meta["collective"];
      const auto c = calib::collective_from_name(cname);
      if (!c) fail_line(file, cline, "collective: one nccl-tests names (all_reduce, all_gather, ...), found \"" + cname + "\"");
      proto.collective = *c;
      proto.ranks = whole(file, meta["ranks"].second, "ranks", meta["ranks"].first, 2);
      proto.nodes = whole(file, meta["nodes"].second, "nodes", meta["nodes"].first, 1);
      if (meta.count("algorithm")) {
        const auto& [a, aline] = meta["algorithm"];
        proto.algorithm = parse_algorithm(a);
        if (!proto.algorithm) fail_line(file, aline, "algorithm: ring, tree, nvls, nvls_tree or hierarchical, found \"" + a + "\"");
      }
      if (meta.count("protocol")) {
        const auto& [p, pline] = meta["protocol"];
        proto.protocol = parse_protocol(p);
        if (!proto.protocol) fail_line(file, pline, "protocol: LL, LL128 or Simple, found \"" + p + "\"");
      }
      proto.in_place = meta.count("in_place") && meta["in_place"].first == "true";
      continue;
    }
    const auto f = split_csv(t);
    if (f.size() != 2)
      fail_line(file, ln, by_time ? "two fields: size in bytes, time of one call in microseconds"
                                  : "two fields: size in bytes, bus bandwidth in GB/s");
    const auto size = to_integer(f[0]);
    if (!size || *size <= 0) fail_line(file, ln, "a size in bytes (a whole number greater than zero), found \"" + f[0] + "\"");
    const auto value = to_number(f[1]);
    if (!value || *value <= 0)
      fail_line(file, ln, std::string(by_time ? "a time in microseconds" : "a bus bandwidth in GB/s") +
                              " greater than zero, found \"" + f[1] + "\"");
    if (!out.empty() && *size <= out.back().size.value)
      fail_line(file, ln, "sizes in increasing order (" + f[0] + " follows " + std::to_string(static_cast<long long>(out.back().size.value)) + ")");
    Measurement m = proto;
    m.size = Bytes(static_cast<double>(*size));
    if (by_time) {
      m.time = Seconds(*value * 1e-6);
    } else {
      const double algbw = *value * 1e9 / busbw_factor(m.collective, m.ranks);
      m.time = Seconds(m.size.value / algbw);
    }
    m.where = file + ":" + std::to_string(ln);
    out.push_back(std::move(m));
  }
  if (out.empty())
    fail_line(file, lines.size() + 1,
              "a '# key: value' preamble, the header \"size,busbw_GBps\" or \"size,time_us\" and rows");
  return out;
}

std::vector<Measurement> load_measurements(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "a readable file (it does not exist or cannot be opened)");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') return parse_nccl_tests_json(text, path);
  for (const std::string& line : calib::split_lines(text)) {
    const std::string_view t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    if (starts_with(t, "size,")) return parse_busbw_table(text, path);  // a published table; its header checked there
    if (starts_with(t, "collective,") || t.find("latency_us") != std::string_view::npos) return parse_tuner_csv(text, path);
    break;
  }
  return parse_nccl_tests_text(text, path);
}

}  // namespace tt
