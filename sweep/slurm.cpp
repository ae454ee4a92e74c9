#include "sweep/slurm.hpp"

#include <sys/wait.h>

#include <array>
#include <cstdio>

#include "core/io/input_error.hpp"
#include "sweep/result_file.hpp"

namespace tt::sweep {
namespace fs = std::filesystem;

namespace {

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string header(const std::string& job_name, const SlurmOptions& o) {
  std::string h = "#!/bin/bash\n#SBATCH --job-name=" + job_name + "\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n";
  h += "#SBATCH --time=" + o.time_limit + "\n";
  if (!o.partition.empty()) h += "#SBATCH --partition=" + o.partition + "\n";
  return h;
}

// stdout of `command`; throws with its output when it fails.
std::string run_command(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run: " + command);
  std::string out;
  std::array<char, 512> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  const int status = pclose(pipe);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error(command + " failed: " + out);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out.substr(0, out.find(';'));  // --parsable: "id" or "id;cluster"
}

}  // namespace

std::pair<int, int> chunk_points(int task, int chunk, int points) {
  const int first = task * chunk;
  return {first, std::min(points, first + chunk) - 1};
}

SlurmPlan write_slurm_scripts(const SweepSpec& spec, const fs::path& out_dir, const SlurmOptions& o) {
  SlurmPlan plan;
  plan.points = static_cast<int>(grid(spec).size());
  const int limit = std::max(1, o.array_limit);
  plan.chunk = o.chunk > 0 ? o.chunk : (plan.points + limit - 1) / limit;
  plan.tasks = (plan.points + plan.chunk - 1) / plan.chunk;
  if (plan.tasks > limit)
    throw InputError("--chunk", "", std::to_string(o.chunk) + " points per task need " + std::to_string(plan.tasks) +
                                        " array tasks, more than --array-limit " + std::to_string(limit));
  const fs::path out = fs::absolute(out_dir);
  const fs::path dir = out / "slurm";
  fs::create_directories(dir / "logs");
  const std::string spec_path = fs::absolute(spec.file).string();
  const std::string name = "tt-sweep-" + spec.name;

  std::string array = header(name, o);
  array += "#SBATCH --array=0-" + std::to_string(plan.tasks - 1) + "\n";
  array += "#SBATCH --output=" + (dir / "logs" / "%A_%a.out").string() + "\n";
  array += "# " + std::to_string(plan.points) + " points x " + std::to_string(spec.seeds.size()) + " seeds; " +
           std::to_string(plan.chunk) + " points per task\n";
  array += "set -eu\nchunk=" + std::to_string(plan.chunk) + "\npoints=" + std::to_string(plan.points) + "\n";
  array += "first=$((SLURM_ARRAY_TASK_ID * chunk))\nlast=$((first + chunk - 1))\n";
  array += "if [ \"$last\" -ge \"$points\" ]; then last=$((points - 1)); fi\n";
  array += "exec " + quoted(o.exe) + " sweep " + quoted(spec_path) + " --out " + quoted(out.string()) +
           " -j 1 --points \"$first-$last\"\n";
  plan.array_script = dir / "array.sbatch";
  write_atomically(plan.array_script, array);

  std::string collect = header(name + "-collect", o);
  collect += "#SBATCH --output=" + (dir / "logs" / "collect_%j.out").string() + "\n";
  collect += "# submitted with --dependency=afterany:<array job>: runs once every task has ended\n";
  collect += "exec " + quoted(o.exe) + " sweep " + quoted(spec_path) + " --out " + quoted(out.string()) + " --collect\n";
  plan.collect_script = dir / "collect.sbatch";
  write_atomically(plan.collect_script, collect);

  plan.summary = "wrote " + plan.array_script.string() + " (" + std::to_string(plan.tasks) + " tasks of " +
                 std::to_string(plan.chunk) + " points) and " + plan.collect_script.string() + "\n";
  if (o.submit) {
    plan.array_job = run_command("sbatch --parsable " + quoted(plan.array_script.string()));
    plan.collect_job = run_command("sbatch --parsable --dependency=afterany:" + plan.array_job + " " +
                                   quoted(plan.collect_script.string()));
    plan.summary += "submitted array job " + plan.array_job + " and collector job " + plan.collect_job +
                    " (tables in " + out.string() + " when it ends)\n";
  } else {
    plan.summary += "submit with: sbatch --parsable " + plan.array_script.string() +
                    "; then sbatch --dependency=afterany:<that id> " + plan.collect_script.string() + "\n";
  }
  return plan;
}

}  // namespace tt::sweep
