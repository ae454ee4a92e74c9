#include "core/io/observed_events.hpp"

#include <limits>
#include <type_traits>

#include "core/fault/fault_kind.hpp"
#include "core/io/input_error.hpp"

namespace tt {

using nlohmann::json;

namespace {

std::optional<Symptom> parse_symptom(const std::string& s) {
  for (Symptom v : {Symptom::Silent, Symptom::CommStalled, Symptom::NoProgress})
    if (s == to_string(v)) return v;
  return std::nullopt;
}

struct Encoder {
  json& j;
  void operator()(const Timer&) { j["event"] = "timer"; }
  void operator()(const JobProgress& e) {
    j.update({{"event", "job_progress"}, {"job", e.job}, {"attempt", e.attempt}, {"iterations", e.iterations},
              {"iteration_time", e.iteration_time.value}});
  }
  void operator()(const CheckpointDone& e) {
    j.update({{"event", "checkpoint_done"}, {"job", e.job}, {"attempt", e.attempt}, {"iteration", e.iteration},
              {"write_time", e.write_time.value}, {"duration", e.duration.value}});
  }
  void operator()(const JobCompleted& e) {
    j.update({{"event", "job_completed"}, {"job", e.job}, {"attempt", e.attempt}});
  }
  void operator()(const JobStalled& e) {
    j.update({{"event", "job_stalled"}, {"job", e.job}, {"attempt", e.attempt}, {"iterations", e.iterations},
              {"cause", e.cause}, {"seen", to_string(e.seen)}, {"links", e.links}});
    if (e.kind) j["kind"] = to_string(*e.kind);
    if (e.since) j["since"] = e.since->value;
  }
  void operator()(const JobResumed& e) { j.update({{"event", "job_resumed"}, {"job", e.job}, {"attempt", e.attempt}}); }
  void operator()(const NodeDown& e) {
    j.update({{"event", "node_down"}, {"node", e.node}, {"kind", to_string(e.kind)}, {"gpu", e.gpu}});
  }
  void operator()(const NodeUp& e) { j.update({{"event", "node_up"}, {"node", e.node}}); }
  void operator()(const LinkDown& e) { j.update({{"event", "link_down"}, {"link", e.link}}); }
  void operator()(const LinkUp& e) { j.update({{"event", "link_up"}, {"link", e.link}}); }
  void operator()(const CheckpointCorrupted& e) { j.update({{"event", "checkpoint_corrupted"}, {"job", e.job}}); }
  void operator()(const RestoredFrom& e) {
    j.update({{"event", "restored_from"}, {"job", e.job}, {"attempt", e.attempt}, {"iteration", e.iteration}});
  }
  void operator()(const NetworkSample& e) {
    j.update({{"event", "network_sample"}, {"node_bytes_per_second", e.node_bytes_per_second}});
  }
  void operator()(const NodeReimaged& e) {
    j.update({{"event", "node_reimaged"}, {"node", e.node}, {"release", e.release}});
  }
  void operator()(const NodeProvisioned& e) { j.update({{"event", "node_provisioned"}, {"node", e.node}}); }
  void operator()(const NodeReclaimNotice& e) {
    j.update({{"event", "node_reclaim_notice"}, {"node", e.node}, {"at", e.at.value}});
  }
  void operator()(const NodeReclaimed& e) { j.update({{"event", "node_reclaimed"}, {"node", e.node}}); }
};

// Field access that turns nlohmann's type errors into the reader's InputError.
struct Fields {
  const json& j;
  const std::string& file;
  const std::string& where;
  template <class T>
  T get(const char* key) const {
    auto it = j.find(key);
    if (it == j.end()) throw InputError(file, where + "/" + key, "a field \"" + std::string(key) + "\"");
    if constexpr (std::is_integral_v<T>) {  // nlohmann would cast 1e10 or 2^40 to int: undefined or wrapped
      const bool fits = it->is_number_unsigned()   ? it->get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<T>::max())
                        : it->is_number_integer() ? it->get<std::int64_t>() >= std::numeric_limits<T>::min() &&
                                                        it->get<std::int64_t>() <= std::numeric_limits<T>::max()
                                                  : false;
      if (!fits)
        throw InputError(file, where + "/" + key,
                         "an integer from " + std::to_string(std::numeric_limits<T>::min()) + " to " +
                             std::to_string(std::numeric_limits<T>::max()) + ", found " + it->dump());
      return static_cast<T>(it->get<std::int64_t>());
    }
    try {
      return it->get<T>();
    } catch (const json::exception&) {
      throw InputError(file, where + "/" + key, "a value of the right type, found " + it->dump());
    }
  }
  Seconds seconds(const char* key) const { return Seconds(get<double>(key)); }
  FaultKind fault_kind(const char* key) const {
    const std::string name = get<std::string>(key);
    auto k = parse_fault_kind(name);
    if (!k) throw InputError(file, where + "/" + key, "a fault kind, found \"" + name + "\"");
    return *k;
  }
};

Event decode(const Fields& f) {
  const std::string kind = f.get<std::string>("event");
  if (kind == "timer") return Timer{};
  if (kind == "job_progress")
    return JobProgress{f.get<int>("job"), f.get<int>("attempt"), f.get<std::int64_t>("iterations"),
                       f.seconds("iteration_time")};
  if (kind == "checkpoint_done")
    return CheckpointDone{f.get<int>("job"), f.get<int>("attempt"), f.get<std::int64_t>("iteration"),
                          f.seconds("write_time"), f.seconds("duration")};
  if (kind == "job_completed") return JobCompleted{f.get<int>("job"), f.get<int>("attempt")};
  if (kind == "job_stalled") {
    JobStalled e{f.get<int>("job"), f.get<int>("attempt"), f.get<std::int64_t>("iterations"),
                 f.get<std::string>("cause")};
    const std::string seen = f.get<std::string>("seen");
    auto s = parse_symptom(seen);
    if (!s) throw InputError(f.file, f.where + "/seen", "silent, collective stalled or no progress, found " + seen);
    e.seen = *s;
    if (f.j.contains("kind")) e.kind = f.fault_kind("kind");
    e.links = f.get<std::vector<int>>("links");
    if (f.j.contains("since")) e.since = f.seconds("since");
    return e;
  }
  if (kind == "job_resumed") return JobResumed{f.get<int>("job"), f.get<int>("attempt")};
  if (kind == "node_down") return NodeDown{f.get<int>("node"), f.fault_kind("kind"), f.get<int>("gpu")};
  if (kind == "node_up") return NodeUp{f.get<int>("node")};
  if (kind == "link_down") return LinkDown{f.get<int>("link")};
  if (kind == "link_up") return LinkUp{f.get<int>("link")};
  if (kind == "checkpoint_corrupted") return CheckpointCorrupted{f.get<int>("job")};
  if (kind == "restored_from")
    return RestoredFrom{f.get<int>("job"), f.get<int>("attempt"), f.get<std::int64_t>("iteration")};
  if (kind == "node_reimaged") return NodeReimaged{f.get<int>("node"), f.get<std::string>("release")};
  if (kind == "node_provisioned") return NodeProvisioned{f.get<int>("node")};
  if (kind == "node_reclaim_notice") return NodeReclaimNotice{f.get<int>("node"), f.seconds("at")};
  if (kind == "node_reclaimed") return NodeReclaimed{f.get<int>("node")};
  if (kind == "network_sample") return NetworkSample{f.get<std::vector<double>>("node_bytes_per_second")};
  throw InputError(f.file, f.where + "/event", "an event kind (timer, job_progress, ..., finish), found " + kind);
}

}  // namespace

json observed_to_json(const Event& event, Seconds t) {
  json j = {{"t", t.value}};
  std::visit(Encoder{j}, event);
  return j;
}

json finish_to_json(Seconds t) { return {{"t", t.value}, {"event", "finish"}}; }

// The indices an event carries must name a job, node, GPU or cable of the scenario: the Controller indexes its tables
// with them (an out-of-range node crashed `traintwin replay`).
struct IndexCheck {
  const Scenario& sc;
  const std::string& file;
  const std::string& where;
  void in(const std::string& key, long long v, long long lo, std::size_t n, const char* what) const {
    if (v < lo || v >= static_cast<long long>(n))
      throw InputError(file, where + "/" + key,
                       std::string(what) + " of the scenario (" + std::to_string(lo) + " to " +
                           std::to_string(static_cast<long long>(n) - 1) + "), found " + std::to_string(v));
  }
  void job(int j) const { in("job", j, 0, sc.jobs.size(), "a job index"); }
  void node(int n) const { in("node", n, 0, sc.topology.nodes().size(), "a node index"); }
  void cable(const std::string& key, int c) const { in(key, c, 0, sc.topology.edges().size(), "a cable index"); }
  void operator()(const JobProgress& e) const { job(e.job); }
  void operator()(const CheckpointDone& e) const { job(e.job); }
  void operator()(const JobCompleted& e) const { job(e.job); }
  void operator()(const JobResumed& e) const { job(e.job); }
  void operator()(const CheckpointCorrupted& e) const { job(e.job); }
  void operator()(const RestoredFrom& e) const { job(e.job); }
  void operator()(const JobStalled& e) const {
    job(e.job);
    for (std::size_t i = 0; i < e.links.size(); ++i) cable("links/" + std::to_string(i), e.links[i]);
  }
  void operator()(const NodeDown& e) const {
    node(e.node);
    in("gpu", e.gpu, -1, static_cast<std::size_t>(sc.topology.total_gpus()), "-1 or a GPU index");
  }
  void operator()(const NodeUp& e) const { node(e.node); }
  void operator()(const NodeProvisioned& e) const { node(e.node); }
  void operator()(const NodeReclaimNotice& e) const { node(e.node); }
  void operator()(const NodeReclaimed& e) const { node(e.node); }
  void operator()(const LinkDown& e) const { cable("link", e.link); }
  void operator()(const LinkUp& e) const { cable("link", e.link); }
  template <class Other>
  void operator()(const Other&) const {}
};

ObservedLog read_observed_log(std::istream& in, const std::string& file, const Scenario* scenario) {
  ObservedLog log;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::string where = "/" + std::to_string(n);
    if (line.empty()) continue;
    if (log.finish) throw InputError(file, where, "nothing after the \"finish\" line");
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw InputError(file, where, "one JSON object per line");
    const Fields f{j, file, where};
    const Seconds t = f.seconds("t");
    if (!log.events.empty() && t < log.events.back().first)
      throw InputError(file, where + "/t", "times that never decrease");
    if (f.get<std::string>("event") == "finish") {
      log.finish = t;
      continue;
    }
    log.events.emplace_back(t, decode(f));
    if (scenario) std::visit(IndexCheck{*scenario, file, where}, log.events.back().second);
  }
  return log;
}

}  // namespace tt
