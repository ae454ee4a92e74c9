// traintwin real SCENARIO --devices cpu:N|cuda:N: run a scenario on real worker processes (real/driver.hpp), write
// the same report as `traintwin run`, print a summary; exit 1 when a check fails, 4 when cuda:N finds fewer than N
// CUDA devices. A scenario with a preflight section is first checked against this machine: a blocking difference
// exits 1 before any worker starts, unless --ignore-preflight (recorded in the report). `traintwin worker ...`
// (hidden) is one rank of a job, started by the real driver. Every run is journaled in OUT/run/journal, and
// `traintwin real --resume OUT` restarts a driver that died (real/durable.hpp); a scenario with a control_plane_crash
// fault runs under a supervisor that kills and restarts the driver for real (cli/real_supervisor.hpp).
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/observed_log.hpp"
#include "cli/real_supervisor.hpp"
#include "core/control/controller.hpp"
#include "core/io/control_plane_reader.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"
#include "core/io/secrets_reader.hpp"
#include "kernels/attention_cuda.hpp"
#include "real/driver.hpp"
#include "real/durable.hpp"
#include "real/twin_driver.hpp"
#include "real/inventory_probe.hpp"
#include "reports/preflight.hpp"
#include "real/worker.hpp"
#include "reports/report.hpp"

namespace tt::cli {
namespace {

struct RealOptions {
  std::string scenario;
  std::string devices;
  std::string out = "out";
  double time_scale = 1.0;
  int metrics_port = -1;
  std::string compute = "attention";
  double heartbeat_timeout = 1.0;
  std::uint64_t seed = 0;
  CLI::Option* seed_opt = nullptr;
  bool quiet = false;
  bool ignore_preflight = false;
  int job_uid_base = -1;
  std::string resume;       // --resume OUT: a restarted driver
  std::string twin;         // --twin RUN_DIR: no workers; the CPU twin fitted to that run (real/twin_driver.hpp)
  bool supervised = false;  // started by the supervisor: a control_plane_crash kills this process
};

// What a resumed driver needs to run the same run again: the scenario as read and the options.
nlohmann::json start_record(const RealOptions& o, const nlohmann::json& doc, const std::string& preflight_record) {
  namespace fs = std::filesystem;
  return {{"scenario_file", fs::absolute(o.scenario).string()},
          {"scenario", doc},
          {"options",
           {{"devices", o.devices},
            {"time_scale", o.time_scale},
            {"compute", o.compute},
            {"heartbeat_timeout", o.heartbeat_timeout},
            {"metrics_port", o.metrics_port},
            {"job_uids", o.job_uid_base},
            {"preflight", preflight_record}}}};
}

// The options of the run being resumed; what this command line adds is only --quiet and --supervised.
void resume_options(const nlohmann::json& start, RealOptions& o) {
  const auto& opt = start.at("options");
  o.scenario = start.at("scenario_file").get<std::string>();
  o.devices = opt.at("devices").get<std::string>();
  o.time_scale = opt.at("time_scale").get<double>();
  o.compute = opt.at("compute").get<std::string>();
  o.heartbeat_timeout = opt.at("heartbeat_timeout").get<double>();
  o.metrics_port = opt.at("metrics_port").get<int>();
  o.job_uid_base = opt.at("job_uids").get<int>();
  o.out = o.resume;
}



std::string self_executable() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("readlink /proc/self/exe: cannot find the traintwin binary to start workers");
  return std::string(buf, static_cast<std::size_t>(n));
}

// The scenario's matrix against this machine (docs/preflight.md): nullopt to go on, else the exit code. `record`
// gets what the report will say about it.
std::optional<int> preflight_this_machine(const Scenario& sc, const RealOptions& o, std::string& record) {
  if (!sc.preflight.enabled()) return std::nullopt;
  const auto probe = real::probe_inventory();
  const auto verdict = preflight::judge_fleet({probe.inventory}, &*sc.preflight.matrix);
  const std::string against = sc.preflight.matrix->source_file + ", release " + sc.preflight.matrix->current;
  if (!verdict.blocking()) {
    record = "passed against " + against;
    return std::nullopt;
  }
  std::string named;
  for (const auto& d : verdict.differences)
    if (d.severity == preflight::Severity::Blocking)
      named += (named.empty() ? "" : "; ") + d.check + " " + d.found + ", expected " + d.expected;
  if (!o.ignore_preflight) {
    std::fprintf(stderr, "%s", preflight_text(verdict).c_str());
    std::fprintf(stderr,
                 "error: preflight of this machine against %s: %s. No worker was started (--ignore-preflight starts "
                 "them anyway and records the override in the report).\n",
                 against.c_str(), named.c_str());
    return kExitChecksFailed;
  }
  record = "overridden (--ignore-preflight) against " + against + ": " + named;
  if (!o.quiet) std::fprintf(stderr, "preflight: %s\n", record.c_str());
  return std::nullopt;
}

// --twin: the same drive loop and Controller, the workers replaced by the CPU twin of this machine fitted to a real
// run's measurements; the reports as a real run writes them (no journal, no worker state).
int run_twin(const RealOptions& o) {
  if (o.scenario.empty() || o.devices.rfind("cpu:", 0) != 0) {
    std::fprintf(stderr, "error: real --twin: a scenario and --devices cpu:N are required (the twin is of this "
                         "machine's CPU workers)\n");
    return kExitBadInput;
  }
  nlohmann::json doc = load_json_file(o.scenario);
  if (o.seed_opt->count()) doc["seed"] = o.seed;
  Scenario scenario = read_scenario(doc, o.scenario);
  const RunMeasurements measured = load_run_measurements(o.twin);
  const CpuTwin twin = fit_cpu_twin(measured);
  real::Options opt;
  opt.devices = std::stoi(o.devices.substr(4));
  opt.time_scale = o.time_scale;
  opt.compute = o.compute;
  opt.control_plane_outages = read_control_plane_outages(doc, o.scenario);
  if (!o.quiet) opt.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  Controller controller(scenario);
  std::filesystem::create_directories(o.out);
  ObservedWriter observed(std::filesystem::path(o.out) / "observed.jsonl");
  opt.on_event = observed.recorder();
  real::RunStats stats;
  try {
    stats = real::run_twin(scenario, controller, opt, twin, measured.file);
    observed.finish(controller.record().end_time);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadInput;
  }
  if (auto it = stats.driver_info.find("twin_extrapolated"); it != stats.driver_info.end() && !o.quiet)
    std::fprintf(stderr, "note: the twin extrapolates: %s\n", it->second.c_str());
  controller.set_driver("real-twin", stats.driver_info);
  const RunRecord& record = controller.record();
  ReportFiles files = write_report(record, o.out);
  if (!o.quiet) {
    std::cout << summary_table(record);
    std::printf("predicted %s of scenario time with the CPU twin fitted to %s (time scale %g; no workers); reports in "
                "%s: %s\n",
                format_seconds(record.end_time).c_str(), measured.file.c_str(), o.time_scale, files.dir.c_str(),
                files.file_names().c_str());
  }
  return record.all_checks_passed() ? 0 : kExitChecksFailed;
}

int run_real(RealOptions o) {
  if (!o.twin.empty()) return run_twin(o);
  std::unique_ptr<real::DurableRun> durable;
  nlohmann::json doc;
  std::string preflight_record;
  if (!o.resume.empty()) {
    const std::filesystem::path dir(o.resume);
    try {
      durable = real::DurableRun::reopen(std::filesystem::exists(dir / "run" / "journal") ? dir / "run" : dir);
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      return kExitBadInput;
    }
    if (!std::filesystem::exists(dir / "run" / "journal")) o.resume = dir.parent_path().string();
    resume_options(durable->start(), o);
    doc = durable->start().at("scenario");
    preflight_record = durable->start().at("options").at("preflight").get<std::string>();
  } else {
    if (o.scenario.empty() || o.devices.empty()) {
      std::fprintf(stderr, "error: real: a scenario and --devices are required (or --resume OUT)\n");
      return kExitBadInput;
    }
    doc = load_json_file(o.scenario);
    if (o.seed_opt->count()) doc["seed"] = o.seed;  // before reading: a generated workload is drawn from it
  }
  Scenario scenario = read_scenario(doc, o.scenario);
  std::vector<ControlPlaneOutage> outages = read_control_plane_outages(doc, o.scenario);
  if (!durable) {
    if (auto refused = preflight_this_machine(scenario, o, preflight_record)) return *refused;
    if (!outages.empty() && !o.supervised) {
      // The drill's driver crash is real: the driver runs in a child that a supervisor restarts with --resume.
      RealOptions child = o;
      child.supervised = true;
      return supervise({o.out, self_executable(), o.time_scale, o.quiet, outages}, [&] { return run_real(child); });
    }
  }
  real::Options opt;
  const bool cuda = o.devices.rfind("cuda:", 0) == 0;
  opt.devices = std::stoi(o.devices.substr(cuda ? 5 : 4));
  if (cuda) {
    // NCCL workers, one per GPU (real/nccl_provider.hpp); every GPU of the topology needs a CUDA device here.
    const int visible = kernels::cuda_device_count();
    if (visible < opt.devices) {
      std::fprintf(stderr, "error: --devices %s needs %d CUDA devices; %s: %s (exit %d)\n", o.devices.c_str(),
                   opt.devices, visible ? (std::to_string(visible) + " visible").c_str() : "none",
                   kernels::cuda_device_description().c_str(), kExitNoDevice);
      return kExitNoDevice;
    }
    opt.provider = "nccl";
  }
  opt.run_dir = std::filesystem::path(o.out) / "run";
  opt.time_scale = o.time_scale;
  opt.worker_command = {self_executable(), "worker"};
  opt.compute = o.compute;
  opt.heartbeat_timeout = o.heartbeat_timeout;
  opt.metrics_port = o.metrics_port;
  opt.job_uid_base = o.job_uid_base;
  opt.secrets = read_scenario_secrets(doc, scenario);
  if (!durable) durable = real::DurableRun::begin(opt.run_dir, start_record(o, doc, preflight_record));
  opt.durable = durable.get();
  opt.crash_on_control_plane = o.supervised;
  opt.control_plane_outages = std::move(outages);
  if (!o.quiet) {
    opt.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    opt.on_metrics_ready = [](int port) { std::fprintf(stderr, "metrics: http://127.0.0.1:%d/metrics\n", port); };
  }
  Controller controller(scenario);
  ObservedWriter observed(std::filesystem::path(o.out) / "observed.jsonl");
  opt.on_event = observed.recorder();
  if (durable->resumed()) {
    durable->replay(scenario, controller, opt.on_event);
    if (!o.quiet && durable->cut_bytes() > 0)
      std::fprintf(stderr, "resume: the journal's last %llu bytes were cut: %s\n",
                   static_cast<unsigned long long>(durable->cut_bytes()), durable->cut_reason().c_str());
  }
  real::RunStats stats;
  try {
    stats = real::run(scenario, controller, opt);
    observed.finish(controller.record().end_time);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadInput;
  }
  if (!preflight_record.empty()) stats.driver_info["preflight"] = preflight_record;
  controller.set_driver("real", stats.driver_info);
  const RunRecord& record = controller.record();
  ReportFiles files = write_report(record, o.out);
  if (!o.quiet) {
    std::cout << summary_table(record);
    std::printf(
        "ran %s of scenario time in %.2f s wall (time scale %g; %d worker processes; driver CPU %.2f s); reports in "
        "%s: %s\n",
        format_seconds(record.end_time).c_str(), stats.wall_seconds, o.time_scale, stats.workers_started,
        stats.driver_cpu_seconds, files.dir.c_str(), files.file_names().c_str());
  }
  return record.all_checks_passed() ? 0 : kExitChecksFailed;
}

}  // namespace

Registered add_real(CLI::App& app) {
  auto o = std::make_shared<RealOptions>();
  auto* sub = app.add_subcommand(
      "real",
      "Run a scenario on real worker processes (Gloo, CPU attention); write reports to DIR; exit 1 if a check fails");
  auto* scenario = sub->add_option("scenario", o->scenario, "scenario JSON file (not with --resume)");
  sub->add_option("--devices", o->devices,
                  "devices backing the topology's GPUs (N = the topology's GPUs): cpu:N (Gloo) or cuda:N (NCCL; exit 4 "
                  "without N CUDA devices)")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            const std::size_t prefix = s.rfind("cpu:", 0) == 0 ? 4 : s.rfind("cuda:", 0) == 0 ? 5 : 0;
            if (prefix == 0) return "expected cpu:N or cuda:N, found " + s;
            try {
              std::size_t used = 0;
              int n = std::stoi(s.substr(prefix), &used);
              if (n >= 1 && used == s.size() - prefix) return "";
            } catch (const std::exception&) {
            }
            return "expected cpu:N or cuda:N with N a whole number >= 1, found " + s;
          },
          "cpu:N|cuda:N"));
  sub->add_option("--out", o->out, "report directory; worker state goes to DIR/run (mode 0700)")->capture_default_str();
  sub->add_option("--time-scale", o->time_scale,
                  "scenario seconds per real second: submit, fault and detection times happen after time / X real "
                  "seconds, iterations are paced to predicted / X")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub->add_option("--metrics-port", o->metrics_port,
                  "serve Prometheus text on http://127.0.0.1:P/metrics while the run goes (0: any free port)")
      ->check(CLI::Range(0, 65535));
  sub->add_option("--compute", o->compute, "per-iteration compute: attention (CPU kernels) or synthetic")
      ->capture_default_str()
      ->check(CLI::IsMember({"attention", "synthetic"}));
  sub->add_option("--heartbeat-timeout", o->heartbeat_timeout,
                  "real seconds of silence before a worker is reported silent (the scenario's detection "
                  "timeout, counted from its last message, decides the failure)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  o->seed_opt = sub->add_option("--seed", o->seed, "override the scenario's seed");
  sub->add_flag("--quiet", o->quiet, "print nothing; only the exit code and the report");
  sub->add_option("--job-uids", o->job_uid_base,
                  "as root: run job j's workers as uid and gid BASE + j, each job's directory its own (0700), so one "
                  "job's workers cannot open another's checkpoints")
      ->check(CLI::Range(1, 2'000'000'000));
  sub->add_option("--resume", o->resume,
                  "restart the driver of the run whose --out is OUT after it died: replay its journal (OUT/run/journal) "
                  "into the Controller, relaunch what trained from its checkpoints, go on (the scenario and options "
                  "are the run's)")
      ->excludes(scenario);
  auto* twin = sub->add_option(
      "--twin", o->twin,
      "start no worker: predict the run with the CPU twin of this machine fitted to RUN_DIR (a real run's --out; "
      "traintwin calibrate --from-run); compare with a real run by traintwin calibrate --predicted OUT --measured B");
  twin->excludes("--resume")->excludes("--metrics-port")->excludes("--job-uids");
  sub->add_flag("--supervised", o->supervised)->group("");  // set by the supervisor (cli/real_supervisor.hpp)
  sub->add_flag("--ignore-preflight", o->ignore_preflight,
                "start workers even when this machine fails the scenario's preflight (recorded in the report)");
  return {sub, [o] { return run_real(*o); }};
}

Registered add_worker(CLI::App& app) {
  auto* sub = app.add_subcommand("worker", "one rank of a job, started by `traintwin real`");
  sub->group("");  // hidden from --help
  sub->prefix_command();
  return {sub, [sub] { return real::worker_main(sub->remaining()); }};
}

}  // namespace tt::cli
