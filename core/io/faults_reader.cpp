#include "core/io/section_readers.hpp"

#include <algorithm>

#include "core/fault/catalogue.hpp"
#include "core/fault/fault_kind.hpp"
#include "core/io/control_plane_reader.hpp"
#include "core/io/reader_support.hpp"

namespace tt::reader {
namespace {

using Json = nlohmann::json;

FaultKind read_fault_kind(JsonObject& o) {
  std::string kind = o.str("kind");
  auto k = parse_fault_kind(kind);
  if (kind == kControlPlaneCrash)  // scripted faults take it before this (read_faults)
    o.fail("kind", std::string("a fault kind with a rate per cluster component; ") + kControlPlaneCrash +
                       " is scripted only (list it under /faults)");
  if (!k) {
    auto names = fault_kind_names();
    names.push_back(kControlPlaneCrash);
    o.fail("kind", "a fault kind (" + list_names(names, names.size()) + "), found " + in_quotes(kind) +
                       suggestion(kind, names));
  }
  return *k;
}

// "fraction": required for straggler (speed left) and storage_slow (bandwidth left), in (0, 1); not allowed otherwise.
double read_fraction(JsonObject& o, FaultKind kind) {
  if (!degrades_only(kind)) {
    if (present(o, "fraction"))
      o.fail("fraction", std::string("no \"fraction\" in a ") + to_string(kind) +
                             " fault (only straggler and storage_slow take one)");
    return 1.0;
  }
  double f = o.number("fraction", 0.0, 1.0);
  if (f <= 0 || f >= 1)
    o.fail("fraction", "a fraction in (0, 1) of the speed or bandwidth left, found " + std::to_string(f));
  return f;
}

const std::vector<std::string> kTargetKeys = {"node", "gpu", "link", "switch", "storage", "job"};


std::string hyphenated(std::string words) {
  std::replace(words.begin(), words.end(), ' ', '-');
  return words;
}

}  // namespace

RepairDistribution read_distribution(JsonObject& o, const std::string& key, const std::string& what) {
  RepairDistribution d;
  const auto& v = o.raw(key);
  if (v.is_string()) {
    d.scale = positive_seconds(o, key);
    return d;
  }
  auto r = open_child(o, key, {"shape", "value", "mean", "median", "sigma"});
  std::string shape = r.str("shape");
  const std::vector<std::string> shapes = {"fixed", "exponential", "lognormal"};
  std::string scale_key;
  if (shape == "fixed")
    d.shape = RepairDistribution::Shape::Fixed, scale_key = "value";
  else if (shape == "exponential")
    d.shape = RepairDistribution::Shape::Exponential, scale_key = "mean";
  else if (shape == "lognormal")
    d.shape = RepairDistribution::Shape::Lognormal, scale_key = "median";
  else
    r.fail("shape", "a " + hyphenated(what) + " shape (fixed, exponential, lognormal), found " + in_quotes(shape) +
                        suggestion(shape, shapes));
  for (const char* k : {"value", "mean", "median"})
    if (k != scale_key && present(r, k))
      r.fail(k, "\"" + scale_key + "\" for a " + shape + " " + what + ", not " + in_quotes(k));
  d.scale = positive_seconds(r, scale_key);
  if (d.shape == RepairDistribution::Shape::Lognormal) {
    d.sigma = r.opt_number("sigma", 0.0, 5.0).value_or(1.0);
  } else if (present(r, "sigma")) {
    r.fail("sigma", "no \"sigma\" for a " + shape + " " + what + " (only lognormal takes one)");
  }
  r.finish();
  return d;
}

std::vector<FaultSpec> read_faults(JsonObject& root, std::vector<FaultSource>& sources) {
  std::vector<FaultSpec> faults;
  if (!present(root, "faults")) return faults;
  std::size_t index = 0;
  for (const auto& [v, ptr] : root.array("faults", /*allow_empty=*/true)) {
    if (v->is_object() && v->contains("kind") && (*v)["kind"] == kControlPlaneCrash) {
      // Checked here; not a fault of the cluster: the drivers play it from the document (control_plane_reader.hpp).
      read_control_plane_crash(*v, root.file(), ptr, index++);
      continue;
    }
    ++index;
    auto o = open(*v, root.file(), ptr,
                  {"kind", "at", "node", "gpu", "link", "switch", "storage", "job", "repair", "fraction"});
    FaultSpec f;
    f.kind = read_fault_kind(o);
    const std::string kind = to_string(f.kind);
    const std::string key = target_key(f.kind);
    for (const auto& other : kTargetKeys)
      if (other != key && present(o, other))
        o.fail(other, "no " + in_quotes(other) + " in a " + kind + " fault (it names a " + in_quotes(key) + ")");
    f.at = o.seconds("at");
    if (f.kind == FaultKind::StorageSlow)
      f.target = o.opt_str("storage").value_or("");  // the topology's storage when absent
    else
      f.target = o.str(key);
    if (without_repair(f.kind)) {
      if (present(o, "repair"))
        o.fail("repair", "no \"repair\" in a " + kind + " fault (" +
                             (f.kind == FaultKind::CheckpointCorrupt
                                  ? std::string("the corrupt checkpoint stays corrupt; a restore skips it")
                                  : std::string("it ends when its job is killed; the node stays up")) +
                             ")");
    } else {
      f.repair = positive_seconds(o, "repair");
    }
    f.fraction = read_fraction(o, f.kind);
    o.finish();
    sources.push_back({ptr, key});
    faults.push_back(std::move(f));
  }
  return faults;
}

// Reads everything but the catalogue's rates, which need the topology (added by add_catalogue_rates()).
StochasticFaults read_stochastic(JsonObject& root) {
  StochasticFaults st;
  if (!present(root, "stochastic")) return st;
  auto o = open_child(root, "stochastic", {"rates", "scale", "until", "faults"});
  if (auto name = o.opt_str("rates")) {
    if (!find_catalogue(*name)) {
      auto names = catalogue_names();
      o.fail("rates", "a failure-rate catalogue (" + list_names(names) + "), found " + in_quotes(*name) +
                          suggestion(*name, names));
    }
    st.catalogue = *name;
  }
  if (auto scale = opt_positive(o, "scale", 1e6)) {
    if (st.catalogue.empty()) o.fail("scale", "\"scale\" only with \"rates\" (it scales the catalogue's rates)");
    st.scale = *scale;
  }
  st.until = opt_positive_seconds(o, "until");
  if (present(o, "faults")) {
    for (const auto& [v, ptr] : o.array("faults")) {
      auto f = open(*v, o.file(), ptr, {"kind", "mtbf", "repair", "fraction", "cause"});
      FaultRate r;
      r.kind = read_fault_kind(f);
      if (scripted_only(r.kind))
        f.fail("kind", std::string("a fault kind with a rate per cluster component; ") + to_string(r.kind) +
                           " is scripted only (list it under /faults with the job it strikes)");
      r.mtbf = positive_seconds(f, "mtbf");
      if (without_repair(r.kind)) {
        if (present(f, "repair")) f.fail("repair", "no \"repair\" for hangs and deadlocks (the node stays up)");
      } else {
        r.repair = read_distribution(f, "repair", "repair time");
      }
      r.fraction = read_fraction(f, r.kind);
      r.cause = f.opt_str("cause").value_or(to_string(r.kind));
      f.finish();
      st.rates.push_back(r);
    }
  }
  if (st.catalogue.empty() && st.rates.empty())
    o.fail_here("\"rates\" (a catalogue name) or \"faults\" (rates per component), found neither");
  o.finish();
  return st;
}

RecoveryPolicy read_recovery(JsonObject& root, std::optional<Seconds>& explicit_comm_timeout) {
  RecoveryPolicy r;
  if (!present(root, "recovery")) return r;
  auto o = open_child(root, "recovery",
                      {"detection_timeout", "comm_timeout", "watchdog_timeout", "restart_overhead", "max_restarts",
                       "hot_spares", "lemon"});
  r.detection_timeout = opt_positive_seconds(o, "detection_timeout").value_or(r.detection_timeout);
  explicit_comm_timeout = opt_positive_seconds(o, "comm_timeout");
  if (explicit_comm_timeout) r.comm_timeout = *explicit_comm_timeout;
  r.watchdog_timeout = opt_positive_seconds(o, "watchdog_timeout").value_or(r.watchdog_timeout);
  r.hot_spares = opt_int_in(o, "hot_spares", 0).value_or(0);
  if (present(o, "lemon")) {
    auto l = open_child(o, "lemon", {"failures", "window"});
    r.lemon_failures = int_in(l, "failures", 1);
    r.lemon_window = positive_seconds(l, "window");
    l.finish();
  }
  r.restart_overhead = o.opt_seconds("restart_overhead").value_or(r.restart_overhead);
  r.max_restarts = opt_int_in(o, "max_restarts", 0).value_or(r.max_restarts);
  o.finish();
  return r;
}

}  // namespace tt::reader
