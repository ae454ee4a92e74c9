// A driver that survives its own crash (real/durable.hpp, docs/reliability.md): `traintwin real` killed with SIGKILL
// at random points of a run and restarted with `--resume` ends with the decisions and the final training state of a
// run never interrupted; and the control-plane outage drill, played for real under the supervisor.
#include <signal.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

#include "tests/e2e/cli_support.hpp"
#include "tests/skip.hpp"

using namespace tt::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// real-quickstart (a hang and a node crash, three jobs) at time scale 300, about 15 s of wall time, with a1 repaired
// at 1h instead of 40m and a 3 s silence floor: on a machine loaded by a parallel test suite a worker's heartbeat may
// be starved for a second, and the bundled timeline leaves the restarted driver's delay (up to ~10 scenario minutes)
// too little room before the repair. The decisions' order stays that of the bundled scenario.
const std::string kArgs = " --devices cpu:4 --time-scale 300 --heartbeat-timeout 3 --quiet --out ";

std::string scenario() {
  const fs::path file = fs::path(TT_BINARY_DIR) / "test-out" / "durable-real-quickstart.json";
  std::string text = read_file(std::string(TT_SOURCE_DIR) + "/scenarios/real-quickstart.json");
  const std::string repair = R"("repair": "25m")", topology = "../topologies/";
  text.replace(text.find(repair), repair.size(), R"("repair": "45m")");
  text.replace(text.find(topology), topology.size(), std::string(TT_SOURCE_DIR) + "/topologies/");
  const fs::path tmp = file.string() + "." + std::to_string(::getpid());  // tests run in parallel: write, then rename
  std::ofstream(tmp) << text;
  fs::rename(tmp, file);
  return file.string();
}

// kind, job and nodes of each decision (decisions.txt): what a resumed run must share with an uninterrupted one.
std::vector<std::string> decisions(const fs::path& out) { return decision_columns(read_file(out / "decisions.txt")); }

// The decisions of each job (and the node decisions, under "-") in their order. A resumed run relaunches the attempts
// that were training from their checkpoints, so the redone iterations can move one job's completion past another's
// (finetune-8b and eval-8b end seconds apart): the decisions and each job's sequence must match, the interleaving of
// different jobs' completions need not.
std::map<std::string, std::vector<std::string>> by_job(const std::vector<std::string>& all) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& d : all) {
    const auto a = d.find(' '), b = d.find(' ', a + 1);
    out[d.substr(a + 1, b - a - 1)].push_back(d);
  }
  return out;
}

// Every job's final checkpoint, file by file: the state files and their manifests (which carry each state's size and
// CRC-32C).
std::map<std::string, std::string> final_state(const fs::path& out) {
  std::map<std::string, std::string> files;
  for (const auto& job : fs::directory_iterator(out / "run")) {
    if (!job.is_directory() || !fs::exists(job.path() / "checkpoints")) continue;
    fs::path last;
    for (const auto& c : fs::directory_iterator(job.path() / "checkpoints"))
      if (last.empty() || c.path().filename() > last.filename()) last = c.path();
    for (const auto& f : fs::directory_iterator(last))
      files[job.path().filename().string() + "/" + last.filename().string() + "/" + f.path().filename().string()] =
          read_file(f.path());
  }
  return files;
}

// `traintwin real` of scenario() into `out`, as kArgs, with --job-uids `job_uids` when it is set.
pid_t start_real(const fs::path& out, int job_uids = -1) {
  std::vector<std::string> args = {TT_CLI, "real", scenario(), "--devices", "cpu:4", "--time-scale", "300",
                                   "--heartbeat-timeout", "3", "--quiet", "--out", out.string()};
  if (job_uids >= 0) args.insert(args.end(), {"--job-uids", std::to_string(job_uids)});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

// Waits until the run's journal holds its start record.
void wait_for_journal(const fs::path& out) {
  const fs::path journal = out / "run" / "journal";
  for (int k = 0; k < 3000 && !(fs::exists(journal) && fs::file_size(journal) > 8); ++k)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

// An uninterrupted run, then `kills` runs killed with SIGKILL at random points (after their journal began, up to the
// length of the uninterrupted run; seeded) and resumed: each must end with its decisions and final state.
void kill_and_resume(int first, int kills) {
  const fs::path base = scratch_dir("durable-base-" + std::to_string(first));
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_cli("real " + scenario() + kArgs + base.string());
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(r.output);
  REQUIRE(r.exit_code <= 1);  // its checks are the bundled timeline's; decisions and state are what is compared
  const auto want_decisions = decisions(base);
  const auto want_state = final_state(base);
  REQUIRE(want_state.size() >= 8);  // two jobs' final checkpoints: state and manifest of each of their two ranks

  std::mt19937 rng(20261201 + first);
  std::uniform_real_distribution<double> when(0.0, 0.95 * wall);
  for (int i = first; i < first + kills; ++i) {
    const fs::path out = scratch_dir("durable-kill-" + std::to_string(i));
    const pid_t pid = start_real(out);
    REQUIRE(pid > 0);
    wait_for_journal(out);
    const double after = when(rng);
    std::this_thread::sleep_for(std::chrono::duration<double>(after));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    auto resumed = run_cli("real --resume " + out.string() + " --quiet");
    INFO("kill " << i << " after " << after << " s of " << wall << " s; the driver "
                 << (WIFSIGNALED(status) ? "was killed" : "had ended") << "\n"
                 << resumed.output);
    REQUIRE(resumed.exit_code <= 1);
    CHECK(by_job(decisions(out)) == by_job(want_decisions));
    CHECK(final_state(out) == want_state);
    const json report = json::parse(read_file(out / "report.json"));
    if (WIFSIGNALED(status)) CHECK(report["driver_info"]["driver_restarts"] == "1");
  }
}

}  // namespace

// 20 kills in two halves, each a ctest test of a few minutes (run them alone: ctest -R "killed at random").
TEST_CASE("e2e: a driver killed at random points resumes to the decisions and state of an uninterrupted run (1-10)",
          "[e2e][real][slow]") {
  kill_and_resume(0, 10);
}

TEST_CASE("e2e: a driver killed at random points resumes to the decisions and state of an uninterrupted run (11-20)",
          "[e2e][real][slow]") {
  kill_and_resume(10, 10);
}

// A run whose jobs' workers run as uids of their own (--job-uids, root only), killed mid-run and resumed: the resumed
// driver takes the uid rule from the journal, its relaunched workers run as their job's uid and restore the
// checkpoints written by the first driver's workers (their files, 0700 directories), and the run ends with the
// decisions and the final state of an uninterrupted run with the same rule.
TEST_CASE("e2e: a driver run with --job-uids, killed and resumed, keeps each job's uid and state", "[e2e][real]") {
  if (::geteuid() != 0) TT_SKIP("a uid per job needs the driver to run as root");
  constexpr int kBase = 61500;
  const fs::path base = scratch_dir("durable-uids-base");
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_cli("real " + scenario() + kArgs + base.string() + " --job-uids " + std::to_string(kBase));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(r.output);
  REQUIRE(r.exit_code <= 1);
  const auto want_state = final_state(base);
  REQUIRE(want_state.size() >= 8);

  const fs::path out = scratch_dir("durable-uids-kill");
  const pid_t pid = start_real(out, kBase);
  REQUIRE(pid > 0);
  wait_for_journal(out);
  std::this_thread::sleep_for(std::chrono::duration<double>(0.5 * wall));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFSIGNALED(status));  // killed mid-run, not after it ended
  auto resumed = run_cli("real --resume " + out.string() + " --quiet");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code <= 1);
  CHECK(by_job(decisions(out)) == by_job(decisions(base)));
  CHECK(final_state(out) == want_state);
  const json report = json::parse(read_file(out / "report.json"));
  CHECK(report["driver_info"]["driver_restarts"] == "1");
  CHECK_THAT(report["driver_info"]["job_uids"].get<std::string>(), Catch::Contains("61500 + j"));
  // Each job's tree, the checkpoints the resumed workers wrote included, belongs to one uid of the rule, a different
  // one per job.
  std::set<uid_t> owners;
  struct stat st {};
  for (const auto& job : fs::directory_iterator(out / "run")) {
    if (!job.is_directory() || !fs::exists(job.path() / "checkpoints")) continue;
    REQUIRE(::stat(job.path().c_str(), &st) == 0);
    const uid_t owner = st.st_uid;
    CHECK(owner >= static_cast<uid_t>(kBase));
    CHECK((st.st_mode & 0777) == 0700);
    CHECK(owners.insert(owner).second);
    for (const auto& f : fs::recursive_directory_iterator(job.path() / "checkpoints")) {
      REQUIRE(::stat(f.path().c_str(), &st) == 0);
      INFO(f.path());
      CHECK(st.st_uid == owner);
    }
  }
  CHECK(owners.size() >= 2);
}

TEST_CASE("e2e: the control-plane drill for real: the driver kills itself, its supervisor resumes it", "[e2e][real]") {
  const fs::path out = scratch_dir("durable-drill");
  const std::string sc = std::string(TT_SOURCE_DIR) + "/scenarios/drill-control-plane.json";
  // No hang to catch: a long silence floor keeps a starved worker on a loaded machine from faking one.
  auto r = run_cli("real " + sc + " --devices cpu:4 --time-scale 300 --heartbeat-timeout 5 --out " + out.string());
  INFO(r.output);
  CHECK_THAT(r.output, Catch::Contains("supervisor: driver pid") && Catch::Contains("killed by signal 9") &&
                           Catch::Contains("control_plane_crash of /faults/0"));
  REQUIRE(r.exit_code == 0);
  const json report = json::parse(read_file(out / "report.json"));
  CHECK(report["driver_info"]["driver_restarts"] == "1");
  CHECK_THAT(report["driver_info"]["driver_restart_1"].get<std::string>(), Catch::Contains("relaunched pretrain-8b"));
  CHECK_THAT(report["driver_info"]["control_plane_outages"].get<std::string>(), Catch::StartsWith("down from 10m 00s"));
  const auto seq = decisions(out);
  // Every decision once: each attempt of a job launched once, each job completed once.
  std::map<std::string, int> seen;
  for (const auto& d : seq) ++seen[d];
  for (const auto& [d, n] : seen)
    if (d.rfind("complete", 0) == 0 || d.rfind("submit", 0) == 0) CHECK(n == 1);
}
