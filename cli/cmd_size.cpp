// traintwin size SPEC --objective KIND:TARGET [--constraint "FIGURE OP VALUE"]...: the smallest (largest) value of a
// parameter meeting the constraints, or the value maximising (minimising) a figure, searched over a sweep spec's
// values (sweep/search.hpp). Prints the answer with its uncertainty and writes DIR/size.json; exit 0 with an answer,
// 1 without one, 2 for bad input.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/commands.hpp"
#include "sweep/result_file.hpp"
#include "sweep/search.hpp"

namespace tt::cli {
namespace fs = std::filesystem;
namespace {

struct SizeOptions {
  std::string spec, objective, out = "size-out";
  std::vector<std::string> constraints;
  int jobs = 1;
};

int run(const SizeOptions& o) {
  const sweep::SweepSpec spec = sweep::read_sweep_spec(o.spec);
  const sweep::Objective objective = sweep::parse_objective(spec, o.objective);
  std::vector<sweep::Constraint> constraints;
  for (const auto& c : o.constraints) constraints.push_back(sweep::parse_constraint(spec, c));
  sweep::SweepOptions so;
  so.out = o.out;
  so.jobs = o.jobs;
  so.exe = fs::read_symlink("/proc/self/exe").string();
  so.progress = true;
  fs::create_directories(so.out);
  const sweep::SizeAnswer a = sweep::size(spec, objective, constraints, so);
  const nlohmann::json doc = sweep::size_json(spec, objective, constraints, a);
  for (const auto& e : doc["evaluated"])
    std::printf("  %s = %s: %s\n", a.parameter.c_str(), e["value"].dump().c_str(),
                e["meets"].get<bool>() ? "meets" : e["why"].get<std::string>().c_str());
  std::printf("%s\n", a.text.c_str());
  sweep::write_atomically(fs::path(o.out) / "size.json", doc.dump(1) + "\n");
  return a.value_index ? 0 : kExitChecksFailed;
}

}  // namespace

Registered add_size(CLI::App& app) {
  auto o = std::make_shared<SizeOptions>();
  auto* sub = app.add_subcommand("size", "Answer a sizing question over a sweep spec's parameter, with its uncertainty");
  sub->add_option("spec", o->spec, "sweep spec JSON file; only the searched parameter may have several values")
      ->required();
  sub->add_option("--objective", o->objective,
                  "smallest:PARAM or largest:PARAM (the first value meeting the constraints), max:FIGURE or "
                  "min:FIGURE")
      ->required();
  sub->add_option("--constraint", o->constraints, "\"FIGURE OP VALUE\", e.g. \"wait_p95 <= 1h\"; repeatable");
  sub->add_option("--out", o->out, "directory of the runs (resumable) and size.json")->capture_default_str();
  sub->add_option("-j,--jobs", o->jobs, "runs at once")->check(CLI::Range(1, 1024))->capture_default_str();
  return {sub, [o] { return run(*o); }};
}

}  // namespace tt::cli
