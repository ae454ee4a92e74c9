// traintwin rehearse SCENARIO --seeds N [-j J]: the scenario's rollout over N seeds, with its release as given and
// with no change at all (the release's effects removed), one forked process per run (SimGrid allows one engine per
// process; this parent never starts one). Reports the false rollback rate (no change, rolled back or paused), the
// detection probability (as given), with Clopper-Pearson intervals, time to decision, canary GPU-hours, the
// per-comparison false-alarm rate of each metric, and the threshold of each metric that reaches a wanted false-alarm
// rate on the no-change runs. docs/rollout.md.
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <numeric>
#include <sstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/control/controller.hpp"
#include "core/io/input_error.hpp"
#include "core/io/control_plane_reader.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"
#include "core/rollout/statistics.hpp"
#include "sim/driver.hpp"

namespace tt::cli {
namespace {

using nlohmann::json;

struct RehearseOptions {
  std::string scenario;
  int seeds = 200;
  int jobs = 2;
  std::uint64_t first_seed = 1;
  std::string variants = "both";
  double false_alarm = 0.02;
  double confidence = 0.95;
  std::string json_out;
  bool quiet = false;
};

// One run in this (forked) process: the scenario at `seed`, its release's effects removed when `no_change`.
json run_one(const std::string& path, std::uint64_t seed, bool no_change) {
  Scenario sc = read_scenario_file(path);
  sc.seed = seed;
  if (no_change)
    std::erase_if(sc.rollout.effects,
                  [&](const rollout::ReleaseEffects& e) { return e.release == sc.rollout.plan->release; });
  Controller c(sc);
  sim::RunOptions options;  // a control-plane drill is played as `traintwin run` plays it
  options.control_plane_outages = read_control_plane_outages(load_json_file(path), path);
  sim::run(sc, c, options);
  const RunRecord& r = c.record();
  json out = {{"seed", seed}, {"variant", no_change ? "no_change" : "as_given"}};
  const RolloutRecord& ro = *r.rollout;
  out["outcome"] = ro.outcome;
  out["decision_s"] = ro.decided && !ro.steps.empty() ? json((*ro.decided - ro.steps.front().started).value)
                                                      : json(nullptr);
  out["canary_gpu_hours"] = ro.canary_gpu_hours;
  json analyses = json::array();
  for (const auto& st : ro.steps)
    for (const auto& v : st.verdicts)
      analyses.push_back({{"step", st.step}, {"metric", rollout::to_string(v.metric)},
                          {"test", rollout::to_string(v.test)}, {"p_value", v.p_value}, {"worse_by", v.worse_by},
                          {"passed", v.passed}});
  out["analyses"] = analyses;
  return out;
}

struct Child {
  pid_t pid;
  int fd;
  std::string text;
};

std::string bar(int done, int total, double wall) {
  const int width = 30, filled = total ? done * width / total : width;
  char tail[64];
  std::snprintf(tail, sizeof tail, "] %d/%d runs  %.1f s", done, total, wall);
  return "[" + std::string(filled, '#') + std::string(width - filled, '.') + tail;
}

std::string pct(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f%%", 100 * x);
  return b;
}

json rate(int k, int n, double confidence) {
  const rollout::Interval iv = n > 0 ? rollout::clopper_pearson(k, n, confidence) : rollout::Interval{};
  return {{"count", k}, {"runs", n}, {"rate", n ? static_cast<double>(k) / n : 0.0}, {"lo", iv.lo}, {"hi", iv.hi},
          {"interval", "Clopper-Pearson"}, {"confidence", confidence}};
}

std::string rate_text(const json& r) {
  return pct(r["rate"].get<double>()) + " (" + std::to_string(r["count"].get<int>()) + "/" +
         std::to_string(r["runs"].get<int>()) + "), " + pct(r["confidence"].get<double>()) + " Clopper-Pearson [" +
         pct(r["lo"].get<double>()) + ", " + pct(r["hi"].get<double>()) + "]";
}

int rehearse(const RehearseOptions& o) {
  const Scenario sc = read_scenario_file(o.scenario);
  if (!sc.rollout.enabled())
    throw InputError(o.scenario, "", "a scenario with a \"rollout\" section (docs/rollout.md) to rehearse");
  std::vector<std::pair<std::uint64_t, bool>> todo;
  for (int i = 0; i < o.seeds; ++i) {
    if (o.variants != "no-change") todo.emplace_back(o.first_seed + i, false);
    if (o.variants != "as-given") todo.emplace_back(o.first_seed + i, true);
  }
  const auto start = std::chrono::steady_clock::now();
  auto wall = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const bool draw = !o.quiet && isatty(STDERR_FILENO);
  std::vector<json> results;
  std::vector<Child> running;
  std::size_t next = 0;
  int failed = 0;
  std::fflush(nullptr);
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && static_cast<int>(running.size()) < std::max(1, o.jobs)) {
      int fds[2];
      if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
      const auto [seed, no_change] = todo[next++];
      const pid_t pid = ::fork();
      if (pid < 0) throw std::runtime_error("fork failed");
      if (pid == 0) {
        ::close(fds[0]);
        int code = 0;
        std::string line;
        try {
          line = run_one(o.scenario, seed, no_change).dump() + "\n";
        } catch (const std::exception& e) {
          line = json{{"seed", seed}, {"error", e.what()}}.dump() + "\n";
          code = 3;
        }
        for (std::size_t off = 0; off < line.size();) {
          const ssize_t n = ::write(fds[1], line.data() + off, line.size() - off);
          if (n <= 0) break;
          off += static_cast<std::size_t>(n);
        }
        ::_exit(code);
      }
      ::close(fds[1]);
      running.push_back({pid, fds[0], ""});
    }
    std::vector<pollfd> polls;
    for (const auto& c : running) polls.push_back({c.fd, POLLIN, 0});
    ::poll(polls.data(), polls.size(), 200);
    for (std::size_t i = 0; i < running.size();) {
      char buf[4096];
      const ssize_t n = (polls[i].revents & (POLLIN | POLLHUP)) ? ::read(running[i].fd, buf, sizeof buf) : -1;
      if (n > 0) running[i].text.append(buf, static_cast<std::size_t>(n));
      if (n != 0) {
        ++i;
        continue;
      }
      ::close(running[i].fd);
      int status = 0;
      ::waitpid(running[i].pid, &status, 0);
      json r = json::parse(running[i].text, nullptr, false);
      if (r.is_discarded() || r.contains("error") || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        ++failed;
        std::fprintf(stderr, "run failed: %s\n", running[i].text.c_str());
      } else {
        results.push_back(std::move(r));
      }
      running.erase(running.begin() + static_cast<long>(i));
      polls.erase(polls.begin() + static_cast<long>(i));
    }
    if (draw) std::fprintf(stderr, "\r%s", bar(static_cast<int>(results.size()) + failed, todo.size(), wall()).c_str());
  }
  if (draw) std::fprintf(stderr, "\r%s\r", std::string(60, ' ').c_str());
  std::sort(results.begin(), results.end(), [](const json& a, const json& b) {
    return std::make_pair(a["variant"].get<std::string>(), a["seed"].get<std::uint64_t>()) <
           std::make_pair(b["variant"].get<std::string>(), b["seed"].get<std::uint64_t>());
  });

  json summary = {{"scenario", sc.name}, {"release", sc.rollout.plan->release}, {"seeds", o.seeds},
                  {"first_seed", o.first_seed}, {"failed_runs", failed}, {"wall_s", wall()}};
  std::ostringstream text;
  text << "rehearse " << sc.name << ": release " << sc.rollout.plan->release << ", " << o.seeds << " seeds from "
       << o.first_seed << "\n";
  for (const bool no_change : {false, true}) {
    const std::string variant = no_change ? "no_change" : "as_given";
    int n = 0, rejected = 0;
    std::vector<double> decision, gpu_hours;
    for (const auto& r : results) {
      if (r["variant"] != variant) continue;
      ++n;
      const std::string outcome = r["outcome"];
      rejected += outcome == "rolled back" || outcome == "paused";
      if (!r["decision_s"].is_null()) decision.push_back(r["decision_s"]);
      gpu_hours.push_back(r["canary_gpu_hours"]);
    }
    if (n == 0) continue;
    json v = {{"runs", n}, {"rejected", rate(rejected, n, o.confidence)},
              {"decision_s_median", rollout::median(decision)},
              {"canary_gpu_hours_mean", std::accumulate(gpu_hours.begin(), gpu_hours.end(), 0.0) / n}};
    summary[variant] = v;
    text << (no_change ? "  false rollback rate (no change): " : "  detection probability (as given): ")
         << rate_text(v["rejected"]) << "\n"
         << "    time to decision (median) " << format_seconds(Seconds(v["decision_s_median"].get<double>()))
         << ", canary GPU-hours (mean) " << v["canary_gpu_hours_mean"].get<double>() << "\n";
  }
  // Per metric on the no-change runs: the false-alarm rate per comparison, and the threshold reaching the wanted rate
  // per run (the worst comparison of each run: the smallest p, the largest excess).
  std::set<std::string> keys;
  for (const auto& r : results)
    if (r["variant"] == "no_change")
      for (const auto& a : r["analyses"])
        keys.insert(a["metric"].get<std::string>() + "/" + a["test"].get<std::string>());
  json metrics = json::object();
  for (const std::string& key : keys) {
    int comparisons = 0, alarms = 0;
    std::vector<double> worst;
    std::string test;
    for (const auto& r : results) {
      if (r["variant"] != "no_change") continue;
      std::optional<double> w;
      for (const auto& a : r["analyses"]) {
        if (a["metric"].get<std::string>() + "/" + a["test"].get<std::string>() != key) continue;
        test = a["test"];
        ++comparisons;
        alarms += !a["passed"].get<bool>();
        const double x = test == "mann_whitney" ? a["p_value"].get<double>() : a["worse_by"].get<double>();
        w = !w ? x : test == "mann_whitney" ? std::min(*w, x) : std::max(*w, x);
      }
      if (w) worst.push_back(*w);
    }
    json m = {{"per_comparison_false_alarm", rate(alarms, comparisons, o.confidence)}, {"test", test}};
    text << "  " << key << ": false alarms per comparison (no change) " << rate_text(m["per_comparison_false_alarm"])
         << "\n";
    if (!worst.empty()) {
      const std::size_t allowed = static_cast<std::size_t>(o.false_alarm * static_cast<double>(worst.size()));
      if (test == "mann_whitney") {
        std::sort(worst.begin(), worst.end());
        const double alpha = allowed < worst.size() ? worst[allowed] : 1.0;
        m["confidence_for_false_alarm"] = 1 - alpha;
        text << "    confidence >= " << 1 - alpha << " keeps false rollbacks at or under " << pct(o.false_alarm)
             << " of these runs\n";
      } else {
        std::sort(worst.rbegin(), worst.rend());
        const double r = allowed < worst.size() ? worst[allowed] : 0.0;
        m["threshold_for_false_alarm"] = r;
        text << "    a threshold of " << r << " keeps false rollbacks at or under " << pct(o.false_alarm)
             << " of these runs\n";
      }
    }
    metrics[key] = m;
  }
  summary["metrics"] = metrics;
  summary["false_alarm_wanted"] = o.false_alarm;
  summary["runs"] = results;
  char tail[96];
  std::snprintf(tail, sizeof tail, "  %zu runs in %.1f s wall, %d at a time\n", todo.size(), wall(), o.jobs);
  text << tail;
  if (!o.quiet) std::cout << text.str();
  if (!o.json_out.empty()) std::ofstream(o.json_out) << summary.dump(2) << "\n";
  return failed ? kExitInternal : 0;
}

}  // namespace

Registered add_rehearse(CLI::App& app) {
  auto o = std::make_shared<RehearseOptions>();
  auto* sub = app.add_subcommand("rehearse",
                                 "a scenario's rollout over many seeds, as given and with no change: false rollback "
                                 "rate, detection probability, time to decision, canary GPU-hours");
  sub->add_option("scenario", o->scenario, "scenario JSON file with a rollout")->required();
  sub->add_option("--seeds", o->seeds, "seeds per variant")->capture_default_str()->check(CLI::Range(1, 1000000));
  sub->add_option("-j,--jobs", o->jobs, "runs at a time (processes)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  sub->add_option("--first-seed", o->first_seed, "the first seed")->capture_default_str();
  sub->add_option("--variants", o->variants, "both, as-given or no-change")
      ->capture_default_str()
      ->check(CLI::IsMember({"both", "as-given", "no-change"}));
  sub->add_option("--false-alarm", o->false_alarm, "the wanted false rollback rate for the threshold search")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--confidence", o->confidence, "confidence of the rates' intervals")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 0.9999));
  sub->add_option("--json", o->json_out, "write the summary and every run as JSON");
  sub->add_flag("--quiet", o->quiet, "print nothing (with --json)");
  return {sub, [o] { return rehearse(*o); }};
}

}  // namespace tt::cli
