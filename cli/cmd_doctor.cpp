// traintwin doctor RUN_DIR [--json] [--long-wait 10m]: the likely causes of what went wrong in a run
// (reports/doctor.hpp). Reads RUN_DIR/report.json and RUN_DIR/events.jsonl (or those of RUN_DIR/run-report, as
// `traintwin accept` leaves them, with RUN_DIR/accept.json), and looks at the run directory's checkpoints (mode,
// free space) and metrics.prom. Exit 0 nothing to explain, 1 findings, 2 a missing or corrupt input.
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "core/io/input_error.hpp"
#include "core/io/json_reader.hpp"
#include "reports/doctor.hpp"
#include "reports/events.hpp"

namespace tt::cli {
namespace {

namespace fs = std::filesystem;

struct DoctorArgs {
  std::string dir;
  std::string long_wait = "10m";
  bool json = false;
};

std::string octal(unsigned mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", mode & 07777);
  return buf;
}

// Checkpoint directories of a real run (RUN/run/<job>/checkpoints, RUN/run/accept-checkpoint) that their owner cannot
// use, and storage that is nearly full.
std::vector<std::string> checkpoint_problems(const fs::path& run) {
  std::vector<std::string> out;
  if (!fs::is_directory(run)) return out;
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(run)) {
    if (!e.is_directory()) continue;
    if (fs::is_directory(e.path() / "checkpoints")) dirs.push_back(e.path() / "checkpoints");
    if (e.path().filename() == "accept-checkpoint") dirs.push_back(e.path() / "checkpoints");
  }
  for (const auto& d : dirs) {
    struct stat st {};
    if (::stat(d.c_str(), &st) != 0) {
      out.push_back(d.string() + ": missing (storage not mounted or removed)");
      continue;
    }
    if ((st.st_mode & 0700) != 0700)
      out.push_back(d.string() + ": mode " + octal(st.st_mode) + ", not readable, writable and searchable by its owner");
    for (const auto& e : fs::directory_iterator(d, fs::directory_options::skip_permission_denied)) {
      struct stat cs {};
      if (e.is_directory() && ::stat(e.path().c_str(), &cs) == 0 && (cs.st_mode & 0700) != 0700)
        out.push_back(e.path().string() + ": mode " + octal(cs.st_mode) + ", not usable by its owner");
    }
    struct statvfs vfs {};
    if (::statvfs(d.c_str(), &vfs) == 0) {
      const double free_bytes = static_cast<double>(vfs.f_bavail) * static_cast<double>(vfs.f_frsize);
      if (free_bytes < 64.0 * 1024 * 1024)
        out.push_back(d.string() + ": storage nearly full, " + std::to_string(static_cast<long long>(free_bytes)) +
                      " bytes free");
    }
  }
  return out;
}

int doctor(const DoctorArgs& a) {
  fs::path dir = a.dir;
  if (!fs::exists(dir / "report.json") && fs::exists(dir / "run-report" / "report.json")) dir = dir / "run-report";
  DoctorInput in;
  const auto wait = parse_seconds(a.long_wait);
  if (!wait || wait->value <= 0) throw InputError("command line", "--long-wait", "a duration such as 10m or 1h");
  in.long_wait = *wait;
  in.report = load_json_file((dir / "report.json").string());
  if (!in.report.is_object() || !in.report.contains("jobs") || !in.report.contains("decisions"))
    throw InputError((dir / "report.json").string(), "", "a traintwin report.json (jobs, decisions)");
  // The decision log as events.jsonl tells it (the file `traintwin logs` reads), in place of the report's copy.
  nlohmann::json decisions = nlohmann::json::array();
  for (const auto& e : read_events_file((dir / "events.jsonl").string()))
    decisions.push_back({{"t_s", e.t.value}, {"kind", e.kind}, {"job", e.job}, {"nodes", e.nodes}, {"reason", e.message}});
  in.report["decisions"] = decisions;
  const fs::path top = a.dir;
  if (fs::exists(top / "accept.json")) in.accept = load_json_file((top / "accept.json").string());
  std::ifstream prom(dir / "metrics.prom");
  std::stringstream text;
  text << prom.rdbuf();
  in.facts.metrics_file = prom.good() && text.str().find("traintwin_") != std::string::npos;
  in.facts.checkpoint_problems = checkpoint_problems(top / "run");
  const Diagnosis d = diagnose(in);
  if (a.json)
    std::cout << diagnosis_json(d).dump(2) << "\n";
  else
    std::cout << diagnosis_text(d);
  return d.findings.empty() ? 0 : kExitChecksFailed;
}

}  // namespace

Registered add_doctor(CLI::App& app) {
  auto a = std::make_shared<DoctorArgs>();
  auto* sub = app.add_subcommand(
      "doctor", "Name the likely causes, ranked with evidence, of each failed check, failed launch, long wait or failed "
                "restore of a run (its report directory); exit 1 when there is something to explain");
  sub->add_option("dir", a->dir, "a run's report directory (traintwin run/real --out, or traintwin accept --out)")
      ->required();
  sub->add_option("--long-wait", a->long_wait, "a job queued longer than this in all is a symptom")->capture_default_str();
  sub->add_flag("--json", a->json, "print JSON");
  return {sub, [a] { return doctor(*a); }};
}

}  // namespace tt::cli
