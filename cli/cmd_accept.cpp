// traintwin accept: the acceptance checklist (core/accept/checklist.hpp), in three forms.
//   --devices cpu:N|cuda:N [--scenario S] [--plan MACHINE_PLAN] [--out DIR]: the seven items for real on this machine
//     (cli/accept_local.hpp); writes DIR/accept.{junit.xml,json,html} and, with --write-plan, the plan it judged
//     against (the machine's curve from calibration runs, the twin's times).
//   --scenario S [--write-plan PLAN] [--out DIR]: a planned cluster: the same list run on the twin (a simulated run of
//     S on its topology, the all-reduce over all its GPUs simulated size by size), and its acceptance plan.
//   --plan PLAN --nccl-tests LOG: a real nccl-tests log (text or -J JSON) judged size by size against the plan.
// Exit 0 every item (size) passed, 1 one failed, 2 bad input (the file and its line or JSON pointer), 4 no CUDA device.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/accept_local.hpp"
#include "cli/commands.hpp"
#include "core/accept/comm_judge.hpp"
#include "core/accept/job_states.hpp"
#include "core/accept/record_items.hpp"
#include "core/accept/twin_plan.hpp"
#include "core/calib/measurement.hpp"
#include "core/control/controller.hpp"
#include "core/io/input_error.hpp"
#include "core/io/control_plane_reader.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"
#include "core/plan/comm_sweep.hpp"
#include "kernels/attention_cuda.hpp"
#include "reports/accept.hpp"
#include "reports/report.hpp"
#include "reports/text.hpp"
#include "sim/comm_sweep.hpp"
#include "sim/driver.hpp"

namespace tt::cli {
namespace {

using accept::Item;
using accept::ItemResult;
using accept::Verdict;

struct AcceptArgs {
  std::string devices;
  std::string scenario;
  std::string plan;
  std::string nccl_tests;
  std::string write_plan;
  std::string out = "out/accept";
  double time_scale = 60;
  std::vector<std::string> calibration;
  double comm_sigma = 0;
  double real_allowance = 1.0;
  double heartbeat_timeout = 5.0;
  double false_failure = 1e-3;
  int calibration_runs = 3;
  int max_restarts = 1;
  std::string min_size = "1K", max_size = "1M";
  std::string twin_max = "8G";
  bool plan_only = false;
  bool json = false;
  bool quiet = false;
  std::vector<std::string> inject;
};

[[noreturn]] void bad(const std::string& option, const std::string& expected) {
  throw InputError("command line", option, expected);
}

std::string self_executable() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("readlink /proc/self/exe: cannot find the traintwin binary to start workers");
  return std::string(buf, static_cast<std::size_t>(n));
}

// The bundled acceptance scenario beside the binary (build/traintwin -> scenarios/), else under the working directory.
std::string default_scenario(const std::string& exe) {
  const auto beside = std::filesystem::path(exe).parent_path().parent_path() / "scenarios" / "accept-local.json";
  if (std::filesystem::exists(beside)) return beside.string();
  if (std::filesystem::exists("scenarios/accept-local.json")) return "scenarios/accept-local.json";
  bad("--scenario", "the acceptance scenario (scenarios/accept-local.json was not found beside the binary or here)");
}

std::vector<Bytes> sizes_between(const std::string& lo, const std::string& hi, const char* option) {
  auto parse = [&](const std::string& text) {
    std::size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
    const std::string unit = text.substr(digits);
    const double scale = unit.empty() ? 1 : unit == "K" ? 1024.0 : unit == "M" ? 1048576.0 : unit == "G" ? 1073741824.0 : 0;
    if (digits == 0 || digits > 12 || scale == 0) bad(option, "a size such as 8, 1K, 64M or 8G");
    return Bytes(std::stod(text.substr(0, digits)) * scale);
  };
  const Bytes b = parse(lo), e = parse(hi);
  if (e < b) bad(option, "a largest size at least the smallest");
  return sweep_sizes(b, e, 2);
}

void write_text(const std::string& path, const std::string& text) {
  if (const auto parent = std::filesystem::path(path).parent_path(); !parent.empty())
    std::filesystem::create_directories(parent);
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

int report(const accept::Checklist& c, const AcceptArgs& a) {
  const std::string files = write_accept_files(c, a.out);
  if (a.json)
    std::cout << accept_json(c).dump(2) << "\n";
  else
    std::cout << accept_text(c) << "# wall " << format_fixed(c.wall_seconds, 1) << " s; reports in " << a.out << ": "
              << files << "\n";
  return c.passed() ? 0 : kExitChecksFailed;
}

// --- a real nccl-tests log against a plan ---------------------------------------------------------------------
int judge_log(const AcceptArgs& a) {
  const auto plan = accept::read_plan_file(a.plan);
  const auto log = load_measurements(a.nccl_tests);
  const auto v = accept::judge_comm(plan, log, a.nccl_tests);
  if (a.json) {
    auto j = comm_verdict_json(v);
    j["plan"] = a.plan;
    j["log"] = a.nccl_tests;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "# traintwin accept: " << a.nccl_tests << " against " << a.plan << " (" << plan.ranks
              << " ranks of " << plan.topology << ")\n"
              << comm_verdict_text(v);
  }
  return v.passed() ? 0 : kExitChecksFailed;
}

// --- a planned cluster: the twin --------------------------------------------------------------------------------
int twin(const AcceptArgs& a) {
  const auto t0 = std::chrono::steady_clock::now();
  const Scenario sc = read_scenario_file(a.scenario);
  const Topology& topo = sc.topology;
  accept::AcceptPlan plan =
      accept::twin_comm_plan(topo, topo.total_gpus(), static_cast<int>(topo.nodes().size()),
                             sizes_between("8", a.twin_max, "--twin-max-size"), sc.perf.comm,
                             accept::default_twin_comm_noise(), a.false_failure);
  // 2. the all-reduce over every GPU, each size simulated (forked engines: before this process runs its own)
  ItemResult collective{Item::Collective};
  if (!a.plan_only) {
    ItemResult& r = collective;
    CommPlanner planner(topo, comm_constants(topo.gpu(), sc.perf.comm));
    std::vector<Bytes> sizes;
    for (const auto& e : plan.comm) sizes.push_back(e.size);
    Sweep sweep = plan_sweep(planner, Collective::AllReduce, pick_gpus(topo, plan.ranks, plan.nodes), sizes);
    std::string error;
    const int errors = sim::measure_sweep(topo, sweep, &error);
    std::vector<Measurement> ms;
    for (const auto& row : sweep.rows) {
      if (!row.measured) continue;
      Measurement m;
      m.ranks = plan.ranks;
      m.size = row.size;
      m.time = *row.measured;
      m.where = "sim " + std::to_string(static_cast<long long>(row.size.value)) + " B";
      ms.push_back(m);
    }
    if (ms.empty()) throw std::runtime_error("the twin measured no all-reduce size: " + error);
    const auto v = accept::judge_comm(plan, ms, "sim");
    r.measured = std::to_string(v.sizes.size() - v.failed_sizes().size()) + "/" + std::to_string(v.sizes.size()) +
                 " sizes at or above their threshold in SimGrid";
    r.expected = "busbw per size >= the plan's threshold";
    r.evidence = "SimGrid, one engine per size\n" + comm_verdict_text(v) + (errors ? "sim: " + error + "\n" : "");
    r.verdict = v.passed() ? Verdict::Passed : Verdict::Failed;
    if (!v.passed()) r.failure = "busbw below the threshold in simulation at " + std::to_string(v.failed_sizes().size()) + " size(s)";
  }
  Controller ctl(sc);
  sim::RunOptions options;  // a control-plane drill is played as `traintwin run` plays it
  options.control_plane_outages = read_control_plane_outages(load_json_file(a.scenario), a.scenario);
  const auto stats = sim::run(sc, ctl, options);
  ctl.set_driver("sim", stats.driver_info);
  const RunRecord& rec = ctl.record();
  accept::add_time_expectations(plan, rec, sc, accept::default_twin_time_noise());
  if (!a.write_plan.empty()) write_text(a.write_plan, plan_json(plan).dump(2) + "\n");
  if (!a.quiet && !a.json) std::cout << plan_text(plan);
  if (a.plan_only) return 0;

  accept::Checklist c;
  c.target = "twin of scenario " + sc.name + " on topology " + topo.name() + " (" + std::to_string(topo.total_gpus()) +
             " x " + topo.gpu().name + ")";
  const std::string where = "simulated run of " + sc.name + " (" + a.scenario + ")\n";
  {  // 1. restarts per job (the twin has no endpoints: the record's counts)
    ItemResult h{Item::Health};
    const auto restarts = accept::record_restarts(rec);
    int most = 0;
    for (const auto& [job, n] : restarts) most = std::max(most, n);
    h.measured = "most restarts of one job " + std::to_string(most);
    h.expected = "no job restarts more than " + std::to_string(a.max_restarts) + " time(s) (endpoints: real runs only)";
    h.evidence = where;
    const std::string problem = accept::restart_problem(restarts, a.max_restarts);
    h.verdict = problem.empty() ? Verdict::Passed : Verdict::Failed;
    h.failure = problem;
    c.items.push_back(h);
  }
  c.items.push_back(collective);
  c.items.push_back({Item::Kernels, Verdict::Skipped, "-", "-", where,
                     "the twin models kernels as compute time only; run accept --devices on the cluster"});
  c.items.push_back(accept::judge_scheduler(rec));
  {  // 5. alerts (metrics and logs are the record's own views in the twin)
    ItemResult ob{Item::Observability};
    std::string evidence = where;
    const std::string problem = accept::alert_problem(rec, plan, evidence);
    ob.measured = std::to_string(rec.alerts.size()) + " alert firing(s), " + std::to_string(rec.decisions.size()) +
                  " logged decisions";
    const auto* l = accept::find_time(plan, "alert_latency");
    ob.expected = "an alert fires after the fault" + (l ? " within " + format_fixed(l->threshold.value, 1) + " s" : "");
    ob.evidence = evidence;
    ob.verdict = problem.empty() ? Verdict::Passed : Verdict::Failed;
    ob.failure = problem;
    c.items.push_back(ob);
  }
  c.items.push_back(accept::judge_node_failure(rec, plan));
  {  // 7. checkpoints written and restores that did not fall back
    ItemResult ck{Item::Checkpoint};
    int written = 0, fallbacks = 0;
    for (const auto& j : rec.jobs) written += j.checkpoints;
    for (const auto& d : rec.decisions) fallbacks += d.kind == "restore";
    ck.measured = std::to_string(written) + " checkpoints written, " + std::to_string(fallbacks) +
                  " restore(s) that fell back to an older checkpoint";
    ck.expected = "checkpoints written; every restore from the checkpoint asked for";
    ck.evidence = where;
    const bool ok = written > 0 && fallbacks == 0;
    ck.verdict = ok ? Verdict::Passed : Verdict::Failed;
    if (!ok) ck.failure = written == 0 ? "no checkpoint was written" : "a restore fell back to an older checkpoint";
    c.items.push_back(ck);
  }
  c.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report(c, a);
}

// --- this machine -------------------------------------------------------------------------------------------------
int local(const AcceptArgs& a) {
  LocalAccept o;
  const std::string& d = a.devices;
  const std::size_t prefix = d.rfind("cpu:", 0) == 0 ? 4 : d.rfind("cuda:", 0) == 0 ? 5 : 0;
  if (prefix == 0 || d.size() == prefix || d.size() > prefix + 3 ||
      d.find_first_not_of("0123456789", prefix) != std::string::npos)
    bad("--devices", "cpu:N or cuda:N");
  o.ranks = std::stoi(d.substr(prefix));
  o.cuda = prefix == 5;
  if (o.ranks < 2) bad("--devices", "at least 2 ranks");
  if (o.cuda && kernels::cuda_device_count() < o.ranks) {
    std::fprintf(stderr, "accept: --devices %s: %s; nothing was checked (exit %d)\n", d.c_str(),
                 kernels::cuda_device_description().c_str(), kExitNoDevice);
    return kExitNoDevice;
  }
  o.worker_executable = self_executable();
  o.scenario = a.scenario.empty() ? default_scenario(o.worker_executable) : a.scenario;
  o.out = a.out;
  o.time_scale = a.time_scale;
  o.calibration_runs = a.calibration_runs;
  o.false_failure = a.false_failure;
  o.max_restarts = a.max_restarts;
  o.quiet = a.quiet;
  o.calibration_logs = a.calibration;
  if (a.comm_sigma > 0) o.comm_sigma = a.comm_sigma;
  o.real_allowance_s = a.real_allowance;
  o.heartbeat_timeout_s = a.heartbeat_timeout;
  o.plan_only = a.plan_only;
  for (Bytes s : sizes_between(a.min_size, a.max_size, "--max-size")) o.sizes.push_back(static_cast<std::int64_t>(s.value));
  if (!a.plan.empty()) o.machine_plan = accept::read_plan_file(a.plan);
  for (const auto& name : a.inject) {
    const auto item = accept::parse_item(name);
    if (!item) bad("--inject", "an item: health, collective, kernels, scheduler, observability, node_failure, checkpoint");
    o.inject.insert(*item);
  }
  LocalResult r = run_local_accept(o);
  if (!a.write_plan.empty()) write_text(a.write_plan, plan_json(r.plan).dump(2) + "\n");
  if (!a.quiet && !a.json) std::cout << plan_text(r.plan);
  if (a.plan_only) return 0;
  return report(r.checklist, a);
}

int run(const AcceptArgs& a) {
  if (!a.nccl_tests.empty()) {
    if (a.plan.empty()) bad("--nccl-tests", "a --plan to judge the log against");
    return judge_log(a);
  }
  if (!a.devices.empty()) return local(a);
  if (a.scenario.empty()) bad("--devices", "--devices cpu:N|cuda:N (this machine), or --scenario S (a planned cluster)");
  return twin(a);
}

}  // namespace

Registered add_accept(CLI::App& app) {
  auto a = std::make_shared<AcceptArgs>();
  auto* sub = app.add_subcommand(
      "accept", "The acceptance checklist: seven items on this machine (--devices) or on the twin (--scenario), or an "
                "nccl-tests log against a plan; JUnit, JSON and HTML; exit 1 if an item fails");
  sub->add_option("--devices", a->devices, "cpu:N (Gloo ranks) or cuda:N (NCCL; exit 4 without N CUDA devices)");
  sub->add_option("--scenario", a->scenario,
                  "with --devices: the scenario run for real (default scenarios/accept-local.json); alone: the "
                  "planned cluster's scenario, run on the twin");
  sub->add_option("--plan", a->plan, "an acceptance plan (JSON, from --write-plan) to judge against");
  sub->add_option("--nccl-tests", a->nccl_tests, "an nccl-tests log (text or -J JSON) to judge against --plan");
  sub->add_option("--write-plan", a->write_plan, "write the acceptance plan used to this file");
  sub->add_flag("--plan-only", a->plan_only, "print and write the plan; judge no item");
  sub->add_option("--calibration", a->calibration,
                  "with --devices: commtest or nccl-tests logs of this machine that calibrate its plan (default: "
                  "--calibration-runs fresh commtest runs)");
  sub->add_option("--comm-sigma", a->comm_sigma,
                  "with --devices: the log-normal sigma of this machine's busbw, instead of the calibration's spread")
      ->check(CLI::Range(0.001, 5.0));
  sub->add_option("--real-allowance", a->real_allowance,
                  "real seconds a real run may add to each of the twin's times (x --time-scale)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  sub->add_option("--out", a->out, "directory of accept.junit.xml, accept.json, accept.html (and the real run)")
      ->capture_default_str();
  sub->add_option("--time-scale", a->time_scale, "scenario seconds per real second of the real run")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub->add_option("--false-failure", a->false_failure, "the false-failure rate each threshold is set to")
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 0.5));
  sub->add_option("--calibration-runs", a->calibration_runs, "commtest runs that fit this machine's curve (no --plan)")
      ->capture_default_str()
      ->check(CLI::Range(1, 50));
  sub->add_option("--max-restarts", a->max_restarts, "restarts of one job that count as restarting in a loop, plus one")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  sub->add_option("-b,--min-size", a->min_size, "smallest commtest size on this machine")->capture_default_str();
  sub->add_option("-e,--max-size", a->max_size, "largest commtest size on this machine")->capture_default_str();
  sub->add_option("--twin-max-size", a->twin_max, "largest all-reduce size of a twin plan (from 8 B, x2)")
      ->capture_default_str();
  sub->add_option("--heartbeat-timeout", a->heartbeat_timeout,
                  "real seconds a worker of the real run may stay silent before it is reported (a loaded machine "
                  "delays workers' first heartbeats)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub->add_flag("--json", a->json, "print the result as JSON");
  sub->add_flag("--quiet", a->quiet, "no progress lines");
  sub->add_option("--inject", a->inject, "test and drill hook: break this item (docs/acceptance.md)")->group("");
  return {sub, [a] { return run(*a); }};
}

}  // namespace tt::cli
