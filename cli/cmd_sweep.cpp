// traintwin sweep SPEC --out DIR [-j N]: every point of a sweep spec at every seed through a local pool of processes
// (resumable), then DIR/table.csv, table.json and sweep.html; --slurm / --emit-slurm hand the runs to a Slurm array
// instead (sweep/slurm.hpp). Exit 0 when every run finished, 1 when some failed or timed out, 2 for a bad spec.
// traintwin sweep-point (hidden): one run, in its own process; the pool starts it.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/commands.hpp"
#include "core/io/input_error.hpp"
#include "sweep/result_file.hpp"
#include "sweep/runner.hpp"
#include "sweep/slurm.hpp"
#include "sweep/table.hpp"

namespace tt::cli {
namespace fs = std::filesystem;
namespace {

struct SweepCliOptions {
  std::string spec;
  std::string out = "sweep-out";
  int jobs = 1;
  bool retry_failed = false;
  std::string points;  // "A-B"
  bool collect = false;
  bool slurm = false, emit_slurm = false;
  sweep::SlurmOptions slurm_options;
};

std::pair<int, int> parse_points(const std::string& s) {
  const auto dash = s.find('-');
  try {
    if (dash != std::string::npos) return {std::stoi(s.substr(0, dash)), std::stoi(s.substr(dash + 1))};
    return {std::stoi(s), std::stoi(s)};
  } catch (const std::exception&) {
    throw InputError("--points", "", "a point index or a range A-B, found \"" + s + "\"");
  }
}

int collect_and_write(const sweep::SweepSpec& spec, const fs::path& out) {
  const sweep::Table table = sweep::collect(spec, out);
  sweep::write_tables(spec, table, out);
  int failed = 0, missing = 0;
  for (const auto& r : table.rows) failed += r.failed, missing += r.missing;
  std::printf("%zu points x %zu seeds: %d runs failed, %d missing; tables in %s: table.csv table.json sweep.html\n",
              table.rows.size(), spec.seeds.size(), failed, missing, out.c_str());
  return table.complete() ? 0 : kExitChecksFailed;
}

int run(const SweepCliOptions& o) {
  const sweep::SweepSpec spec = sweep::read_sweep_spec(o.spec);
  const fs::path out = o.out;
  fs::create_directories(out);
  if (o.slurm || o.emit_slurm) {
    sweep::SlurmOptions so = o.slurm_options;
    so.exe = fs::read_symlink("/proc/self/exe").string();
    so.submit = o.slurm;
    const sweep::SlurmPlan plan = sweep::write_slurm_scripts(spec, out, so);
    std::printf("%s", plan.summary.c_str());
    return 0;
  }
  if (o.collect) return collect_and_write(spec, out);
  sweep::SweepOptions so;
  so.out = out;
  so.jobs = o.jobs;
  so.exe = fs::read_symlink("/proc/self/exe").string();
  so.retry_failed = o.retry_failed;
  so.progress = true;
  if (!o.points.empty()) so.points = parse_points(o.points);
  const sweep::SweepOutcome r = sweep::run_sweep(spec, so);
  std::printf("sweep %s: %d runs: %d kept from before, %d run now (%.1f s wall, -j %d), %d failed\n",
              spec.name.c_str(), r.runs, r.kept, r.ran, r.wall_s, o.jobs, r.failed);
  if (r.interrupted) {
    std::printf("interrupted: finished runs are kept; run the same command again to resume\n");
    return kExitChecksFailed;
  }
  if (so.points) return r.failed ? kExitChecksFailed : 0;  // a chunk: the collector writes the tables
  return collect_and_write(spec, out);
}

struct PointOptions {
  std::string spec, dir;
  int point = 0;
  std::uint64_t seed = 1;
};

int run_point(const PointOptions& o) {
  const sweep::SweepSpec spec = sweep::read_sweep_spec(o.spec, false);  // the parent checked every point
  const auto points = sweep::grid(spec);
  if (o.point < 0 || o.point >= static_cast<int>(points.size()))
    throw InputError(o.spec, "/parameters", "a point index in [0, " + std::to_string(points.size() - 1) + "]");
  return sweep::run_point(spec, points[o.point], o.seed, o.dir);
}

}  // namespace

Registered add_sweep(CLI::App& app) {
  auto o = std::make_shared<SweepCliOptions>();
  auto* sub = app.add_subcommand(
      "sweep", "Run a sweep spec (points x seeds) locally or on Slurm; write DIR/table.csv, table.json, sweep.html");
  sub->add_option("spec", o->spec, "sweep spec JSON file (docs/sweeps.md)")->required();
  sub->add_option("--out", o->out, "results directory (resumable: finished runs there are kept)")
      ->capture_default_str();
  sub->add_option("-j,--jobs", o->jobs, "runs at once")->check(CLI::Range(1, 1024))->capture_default_str();
  sub->add_flag("--retry-failed", o->retry_failed, "run again the runs that failed or timed out before");
  sub->add_option("--points", o->points, "only points A-B (a Slurm array task's chunk); writes no tables");
  sub->add_flag("--collect", o->collect, "run nothing: write the tables from the results in DIR");
  sub->add_flag("--slurm", o->slurm, "submit the runs as a Slurm array job and a dependent collector job");
  sub->add_flag("--emit-slurm", o->emit_slurm, "write the Slurm scripts into DIR/slurm without submitting");
  sub->add_option("--partition", o->slurm_options.partition, "Slurm partition");
  sub->add_option("--array-limit", o->slurm_options.array_limit,
                  "most tasks in one array (the site's MaxArraySize - 1); points beyond it share tasks")
      ->check(CLI::Range(1, 4000000))
      ->capture_default_str();
  sub->add_option("--chunk", o->slurm_options.chunk, "points per array task (0: as few tasks as the limit allows)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--time", o->slurm_options.time_limit, "Slurm time limit of each task (sbatch --time)")
      ->capture_default_str();

  return {sub, [o] { return run(*o); }};
}

Registered add_sweep_point(CLI::App& app) {
  auto p = std::make_shared<PointOptions>();
  auto* point = app.add_subcommand("sweep-point", "one run of a sweep (started by `traintwin sweep`)");
  point->group("");
  point->add_option("spec", p->spec)->required();
  point->add_option("--point", p->point)->required();
  point->add_option("--seed", p->seed)->required();
  point->add_option("--dir", p->dir)->required();
  return {point, [p] { return run_point(*p); }};
}

}  // namespace tt::cli
