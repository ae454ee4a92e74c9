// nccl-tests' JSON output (-J FILE). Layout as NVIDIA/nccl-tests src/util.cu writes it (JSON_FILE_VERSION 2):
// {"version", "args": [program, ...], "env": ["NCCL_ALGO=...", ...], "config": {"devices": [{"rank", "hostname"}]},
//  "results": [{"size", "count", "type", "redop", "root", "out_of_place": {"time" | "cpu_time", "alg_bw", "bus_bw",
//  "nwrong"} | null, "in_place": {...} | null}]}.
#include <nlohmann/json.hpp>
#include <set>

#include "core/calib/measurement.hpp"
#include "core/calib/text_support.hpp"
#include "core/io/json_reader.hpp"

namespace tt {
namespace {

using Json = nlohmann::json;

const Json& member(const Json& o, const std::string& key, const std::string& file, const std::string& ptr,
                   const std::string& expected) {
  if (!o.is_object() || !o.contains(key)) throw InputError(file, ptr + "/" + key, expected);
  return o.at(key);
}

std::optional<std::string> env_value(const Json& env, const std::string& name) {
  if (!env.is_array()) return std::nullopt;
  for (const Json& e : env)
    if (e.is_string()) {
      const std::string s = e.get<std::string>();
      if (calib::starts_with(s, name + "=")) return s.substr(name.size() + 1);
    }
  return std::nullopt;
}

}  // namespace

std::vector<Measurement> parse_nccl_tests_json(const std::string& text, const std::string& file) {
  const Json doc = parse_json_text(text, file);
  if (!doc.is_object()) throw InputError(file, "", "an nccl-tests -J report: a JSON object");
  const Json& version = member(doc, "version", file, "", "the report's format version (nccl-tests -J writes 2)");
  if (!version.is_number_integer() || version.get<int>() < 1 || version.get<int>() > 2)
    throw InputError(file, "/version", "format version 1 or 2, found " + version.dump());
  const Json& args = member(doc, "args", file, "", "the command line (args[0] is the nccl-tests program)");
  if (!args.is_array() || args.empty() || !args[0].is_string())
    throw InputError(file, "/args", "an array of strings whose first is the program, found " + args.dump());
  std::optional<Collective> c = calib::collective_from_name(args[0].get<std::string>());
  if (!c) c = calib::collective_in_file_name(file);
  if (!c)
    throw InputError(file, "/args/0",
                     "an nccl-tests program of a collective the twin models (all_reduce_perf, all_gather_perf, ...), "
                     "found " + args[0].dump());
  const Json& config = member(doc, "config", file, "", "the run's configuration with its devices");
  const Json& devices = member(config, "devices", file, "/config", "the list of ranks and their hosts");
  if (!devices.is_array() || devices.empty())
    throw InputError(file, "/config/devices", "a non-empty array of devices, found " + devices.dump());
  std::set<std::string> hosts;
  int ranks = 0;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const std::string ptr = "/config/devices/" + std::to_string(i);
    const Json& rank = member(devices[i], "rank", file, ptr, "the device's rank");
    const Json& host = member(devices[i], "hostname", file, ptr, "the device's host name");
    if (!rank.is_number_integer() || rank.get<long long>() < 0)
      throw InputError(file, ptr + "/rank", "a rank (a whole number from 0), found " + rank.dump());
    if (!host.is_string()) throw InputError(file, ptr + "/hostname", "a host name, found " + host.dump());
    ranks = std::max(ranks, rank.get<int>() + 1);
    hosts.insert(host.get<std::string>());
  }
  std::optional<Algorithm> algo;
  std::optional<Protocol> proto;
  if (doc.contains("env")) {
    if (auto a = env_value(doc["env"], "NCCL_ALGO"); a && a->find(',') == std::string::npos) algo = parse_algorithm(*a);
    if (auto p = env_value(doc["env"], "NCCL_PROTO"); p && p->find(',') == std::string::npos) proto = parse_protocol(*p);
  }
  const Json& results = member(doc, "results", file, "", "the result rows (nccl-tests writes them as it measures)");
  if (!results.is_array() || results.empty())
    throw InputError(file, "/results", "a non-empty array of result rows, found " + results.dump().substr(0, 80));
  std::vector<Measurement> out;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string ptr = "/results/" + std::to_string(i);
    const Json& r = results[i];
    const Json& size = member(r, "size", file, ptr, "the size in bytes");
    if (!size.is_number_unsigned())
      throw InputError(file, ptr + "/size", "a size in bytes (a whole number), found " + size.dump());
    bool any = false;
    for (const char* key : {"out_of_place", "in_place"}) {
      if (!r.contains(key) || r[key].is_null()) continue;
      any = true;
      const std::string p = ptr + "/" + key;
      const Json& body = r[key];
      if (!body.is_object()) throw InputError(file, p, "an object with time, alg_bw, bus_bw, nwrong, or null");
      const char* time_key = body.contains("time") ? "time" : "cpu_time";
      const Json& time = member(body, time_key, file, p, "the time of one call in microseconds");
      if (!time.is_number() || time.get<double>() < 0)
        throw InputError(file, p + "/" + time_key, "a time in microseconds, found " + time.dump());
      for (const char* bw : {"alg_bw", "bus_bw"}) {
        const Json& v = member(body, bw, file, p, "a bandwidth in GB/s");
        if (!v.is_number() || v.get<double>() < 0) throw InputError(file, p + "/" + bw, "a bandwidth in GB/s, found " + v.dump());
      }
      if (body.contains("nwrong") && !body["nwrong"].is_null()) {
        if (!body["nwrong"].is_number())
          throw InputError(file, p + "/nwrong", "a count of wrong elements or null, found " + body["nwrong"].dump());
        if (body["nwrong"].get<double>() > 0)
          throw InputError(file, p + "/nwrong",
                           "0 wrong elements, found " + body["nwrong"].dump() +
                               ": the run failed its data check, so its times are not a measurement");
      }
      if (size.get<std::uint64_t>() == 0) continue;
      if (time.get<double>() <= 0) throw InputError(file, p + "/" + time_key, "a time greater than zero");
      Measurement m;
      m.collective = *c;
      m.ranks = ranks;
      m.nodes = static_cast<int>(hosts.size());
      m.size = Bytes(static_cast<double>(size.get<std::uint64_t>()));
      m.time = Seconds(time.get<double>() * 1e-6);
      m.algorithm = algo;
      m.protocol = proto;
      m.in_place = std::string(key) == "in_place";
      m.where = file + "#" + p;
      out.push_back(std::move(m));
    }
    if (!any) throw InputError(file, ptr, "an out_of_place or in_place result (both are null or absent)");
  }
  return out;
}

}  // namespace tt
