// Secrets and least privilege in the real driver (docs/reliability.md): a planted secret reaches its own job's
// workers (read back from /proc/PID/environ while they run) and no other's, and no output holds it in clear; with a
// uid per job (root only), each job's directory is its own and another job's workers cannot open its checkpoints.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "core/control/controller.hpp"
#include "core/io/input_error.hpp"
#include "core/io/observed_events.hpp"
#include "core/io/scenario_reader.hpp"
#include "core/io/secrets_reader.hpp"
#include "real/driver.hpp"
#include "real_support.hpp"
#include "reports/report.hpp"
#include "tests/skip.hpp"

using namespace tt;
using nlohmann::json;
using tt::testing::real_scratch;
using tt::testing::slurp;
namespace fs = std::filesystem;

namespace {

// Two jobs of two ranks on the 2 x 2 A100 example: alpha packs onto a0, beta onto a1; both run at once.
json two_jobs(const std::string& name) {
  json doc = {
      {"name", name},
      {"seed", 5},
      {"topology", std::string(TT_SOURCE_DIR) + "/topologies/explicit-2x2-example.json"},
      {"queues", json::array({{{"name", "q"}, {"gpu_quota", 4}}})},
      {"jobs", json::array()},
  };
  for (const char* job : {"alpha", "beta"})
    doc["jobs"].push_back({{"name", job}, {"queue", "q"}, {"gpus", 2}, {"model", "llama3-8b"},
                           {"parallel", {{"tp", 2}}}, {"iterations", 30}, {"global_batch", 8}, {"seq_len", 4096},
                           {"checkpoint", {{"every", 5}}}});
  return doc;
}

std::string random_secret(const std::string& label) {
  std::random_device rd;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x%08x%08x", rd(), rd(), rd());
  return "tt-planted-" + label + "-" + buf;
}

// What /proc says about the driver's live children: by pid, the worker's job (--job-name), its uid and environment.
struct Seen {
  std::string job;
  unsigned uid = 0;
  std::set<std::string> env;
};

void look_at_workers(std::map<int, Seen>& seen) {
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = slurp(e.path() / "stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    int ppid = 0;
    char state = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) != 2 || ppid != ::getpid()) continue;
    Seen s;
    std::string cmd = slurp(e.path() / "cmdline");
    std::vector<std::string> args;
    for (std::size_t at = 0; at < cmd.size();) {
      const auto end = cmd.find('\0', at);
      args.push_back(cmd.substr(at, end - at));
      at = end == std::string::npos ? cmd.size() : end + 1;
    }
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == "--job-name") s.job = args[i + 1];
    const std::string env = slurp(e.path() / "environ");
    for (std::size_t at = 0; at < env.size();) {
      const auto end = env.find('\0', at);
      s.env.insert(env.substr(at, end - at));
      at = end == std::string::npos ? env.size() : end + 1;
    }
    const std::string status = slurp(e.path() / "status");
    const auto uid = status.find("\nUid:");
    if (uid != std::string::npos) s.uid = static_cast<unsigned>(std::stoul(status.substr(uid + 5)));
    if (!s.job.empty() && !s.env.empty()) seen[std::stoi(pid)] = s;
  }
}

struct SecretRun {
  fs::path dir;
  std::unique_ptr<Scenario> scenario;
  std::unique_ptr<Controller> controller;
  std::map<int, Seen> workers;
  std::string log, observed, metrics;
};

// alpha gets ALPHA_TOKEN from the driver's variable RELIAB_ALPHA_SOURCE; beta gets BETA_KEY from a 0600 file.
SecretRun run_with_secrets(const std::string& name, const std::string& alpha, const std::string& beta,
                           int job_uid_base) {
  SecretRun r;
  r.dir = real_scratch(name);
  fs::create_directories(r.dir / "vault");
  const fs::path key = r.dir / "vault" / "beta.key";
  std::ofstream(key) << beta << "\n";
  REQUIRE(::chmod(key.c_str(), 0600) == 0);
  ::setenv("RELIAB_ALPHA_SOURCE", alpha.c_str(), 1);
  json doc = two_jobs(name);
  doc["secrets"] = json::parse(R"([{"name": "ALPHA_TOKEN", "from_env": "RELIAB_ALPHA_SOURCE", "jobs": ["alpha"]},
                                   {"name": "BETA_KEY", "from_file": "vault/beta.key", "jobs": ["beta"]}])");
  r.scenario = std::make_unique<Scenario>(read_scenario(doc, (r.dir / "scenario.json").string()));
  r.controller = std::make_unique<Controller>(*r.scenario);
  real::Options opt;
  opt.devices = 4;
  opt.run_dir = r.dir / "run";
  opt.time_scale = 600;
  opt.worker_command = {TT_REAL_WORKER};
  opt.compute = "synthetic";
  opt.heartbeat_timeout = 60;
  opt.job_uid_base = job_uid_base;
  opt.secrets = read_scenario_secrets(doc, *r.scenario);
  opt.metrics_port = 0;
  int port = 0;
  opt.on_metrics_ready = [&](int p) { port = p; };
  opt.log = [&](const std::string& line) { r.log += line + "\n"; };
  opt.on_event = [&](Seconds t, const Event& e) {
    r.observed += observed_to_json(e, t).dump() + "\n";
    std::set<std::string> jobs;
    for (const auto& [pid, s] : r.workers) jobs.insert(s.job);
    if (jobs.size() < 2) look_at_workers(r.workers);
    if (r.metrics.empty() && jobs.size() == 2) r.metrics = tt::testing::http_get(port, "/metrics");
  };
  real::RunStats stats = real::run(*r.scenario, *r.controller, opt);
  r.controller->set_driver("real", stats.driver_info);
  write_report(r.controller->record(), (r.dir / "out").string());
  ::unsetenv("RELIAB_ALPHA_SOURCE");
  return r;
}

// Every file under `dir` (names and bytes) that holds `needle`.
std::vector<std::string> files_holding(const fs::path& dir, const std::string& needle) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().string().find(needle) != std::string::npos) out.push_back(e.path().string() + " (its name)");
    if (e.is_regular_file() && slurp(e.path()).find(needle) != std::string::npos) out.push_back(e.path().string());
  }
  return out;
}

void check_delivery_and_no_leak(const SecretRun& r, const std::string& alpha, const std::string& beta) {
  INFO(r.log);
  for (const auto& j : r.controller->record().jobs) CHECK(j.state == JobStatus::Completed);
  // Delivered: each job's workers hold their own secret, under its name, and nothing of the other job's.
  std::map<std::string, int> workers_of;
  for (const auto& [pid, s] : r.workers) {
    INFO(s.job << " pid " << pid);
    ++workers_of[s.job];
    const bool is_alpha = s.job == "alpha";
    CHECK(s.env.count(is_alpha ? "ALPHA_TOKEN=" + alpha : "BETA_KEY=" + beta) == 1);
    for (const auto& entry : s.env) {
      CHECK(entry.find(is_alpha ? beta : alpha) == std::string::npos);
      CHECK(entry.rfind(is_alpha ? "BETA_KEY=" : "ALPHA_TOKEN=", 0) != 0);
      CHECK(entry.rfind("RELIAB_ALPHA_SOURCE=", 0) != 0);  // not even the driver's variable that held it
    }
  }
  CHECK(workers_of["alpha"] >= 1);
  CHECK(workers_of["beta"] >= 1);
  // Never written: not in the run directory (checkpoints, stores, worker logs), report.json, events.jsonl, the HTML,
  // metrics.prom, the endpoint's scrape, observed events or the driver's log.
  for (const std::string& secret : {alpha, beta}) {
    CHECK(files_holding(r.dir / "run", secret).empty());
    CHECK(files_holding(r.dir / "out", secret).empty());
    CHECK(r.log.find(secret) == std::string::npos);
    CHECK(r.observed.find(secret) == std::string::npos);
    CHECK(r.metrics.find(secret) == std::string::npos);
  }
  CHECK_THAT(r.metrics, Catch::Contains("traintwin_workers_live"));  // the scrape happened
  for (const char* f : {"report.json", "events.jsonl", "report.html", "metrics.prom"})
    CHECK(fs::exists(r.dir / "out" / f));
  CHECK_THAT(slurp(r.dir / "out" / "report.json"), Catch::Contains("ALPHA_TOKEN, BETA_KEY (by reference"));
}

}  // namespace

TEST_CASE("secrets: each job's workers get only their own, and no output holds one in clear", "[real][e2e]") {
  const std::string alpha = random_secret("alpha"), beta = random_secret("beta");
  const SecretRun r = run_with_secrets("secrets", alpha, beta, -1);
  check_delivery_and_no_leak(r, alpha, beta);
  // Each job's directory is its own (0700); without a uid per job, the workers share the driver's uid.
  for (int j = 0; j < 2; ++j) {
    struct stat st {};
    REQUIRE(::stat((r.dir / "run" / real::job_dir_name(*r.scenario, j)).c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
  }
  for (const auto& [pid, s] : r.workers) CHECK(s.uid == ::geteuid());
}

TEST_CASE("secrets: a missing variable or a file others can read stops the run before any worker (exit 2)",
          "[real][unit]") {
  const fs::path dir = real_scratch("secrets-refused");
  const fs::path key = dir / "open.key";
  std::ofstream(key) << "readable-by-all";
  REQUIRE(::chmod(key.c_str(), 0644) == 0);
  json doc = two_jobs("secrets-refused");
  doc["secrets"] = json::parse(R"([{"name": "K", "from_file": "open.key", "jobs": ["beta"]}])");
  Scenario s = read_scenario(doc, (dir / "scenario.json").string());
  Controller c(s);
  real::Options opt;
  opt.devices = 4;
  opt.run_dir = dir / "run";
  opt.worker_command = {TT_REAL_WORKER};
  opt.secrets = read_scenario_secrets(doc, s);
  int started = 0;
  opt.before_launch = [&](const fs::path&, const Launch&) { ++started; };
  CHECK_THROWS_AS(real::run(s, c, opt), InputError);
  CHECK_THROWS_WITH(real::run(s, c, opt), Catch::Contains("/secrets/0/from_file") && Catch::Contains("mode 0644"));
  ::unsetenv("RELIAB_UNSET_SOURCE");
  doc["secrets"] = json::parse(R"([{"name": "K", "from_env": "RELIAB_UNSET_SOURCE", "jobs": ["alpha"]}])");
  opt.secrets = read_scenario_secrets(doc, s);
  CHECK_THROWS_WITH(real::run(s, c, opt), Catch::Contains("/secrets/0/from_env"));
  CHECK(started == 0);
}

TEST_CASE("job uids: each job's workers run as its own uid and cannot open another job's checkpoints",
          "[real][e2e]") {
  if (::geteuid() != 0) TT_SKIP("a uid per job needs the driver to run as root");
  constexpr int kBase = 61400;
  const std::string alpha = random_secret("alpha"), beta = random_secret("beta");
  const SecretRun r = run_with_secrets("job-uids", alpha, beta, kBase);
  check_delivery_and_no_leak(r, alpha, beta);
  for (const auto& [pid, s] : r.workers) CHECK(s.uid == (s.job == "alpha" ? kBase : kBase + 1u));
  struct stat st {};
  REQUIRE(::stat((r.dir / "run").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0711);  // search only: a job's workers reach their directory, list no other
  std::vector<fs::path> checkpoint_of(2);
  for (int j = 0; j < 2; ++j) {
    const fs::path jd = r.dir / "run" / real::job_dir_name(*r.scenario, j);
    REQUIRE(::stat(jd.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    CHECK(st.st_uid == static_cast<uid_t>(kBase + j));
    for (const auto& e : fs::recursive_directory_iterator(jd))
      if (e.is_regular_file() && e.path().string().find("checkpoint") != std::string::npos) checkpoint_of[j] = e.path();
    REQUIRE_FALSE(checkpoint_of[j].empty());
  }
  // As beta's uid, the way beta's workers run: alpha's checkpoint cannot be opened (EACCES), beta's own can.
  auto open_as = [](uid_t uid, const fs::path& file) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      if (::setresgid(uid, uid, uid) != 0 || ::setresuid(uid, uid, uid) != 0) ::_exit(3);
      const int fd = ::open(file.c_str(), O_RDONLY);
      ::_exit(fd >= 0 ? 0 : errno == EACCES ? 1 : 2);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  CHECK(open_as(kBase + 1, checkpoint_of[0]) == 1);
  CHECK(open_as(kBase + 1, checkpoint_of[1]) == 0);
  CHECK(open_as(kBase, checkpoint_of[1]) == 1);
  CHECK_THAT(slurp(r.dir / "out" / "report.json"), Catch::Contains("61400 + j"));
}
