// traintwin import FORMAT TRACE --template SCENARIO --out FILE: a workload trace (sacct, acme, helios) replayed as a
// scenario on the template's cluster and policies (core/io/trace_import.hpp). A malformed row exits 2 naming its line,
// unless --skip-invalid: then it is left out and listed. The scenario written is read back (validated) first.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "cli/commands.hpp"
#include "core/io/input_error.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"
#include "core/io/trace_import.hpp"

namespace tt::cli {
namespace fs = std::filesystem;
namespace {

struct ImportCliOptions {
  std::string format, trace, templ, out;
  bool skip_invalid = false;
  ImportOptions import;
};

int run(ImportCliOptions o) {
  const auto format = trace_format(o.format);
  if (!format) throw InputError("FORMAT", "", "sacct, acme or helios, found \"" + o.format + "\"");
  const TraceRows rows = read_trace_file(o.trace, *format, o.skip_invalid);
  if (o.import.name.empty()) o.import.name = fs::path(o.out).stem().string();
  ImportSummary summary;
  const nlohmann::json doc =
      import_scenario(load_json_file(o.templ), o.templ, o.out, rows, o.import, summary);
  (void)read_scenario(doc, o.out);  // what is written must read back
  {
    std::ofstream out(o.out, std::ios::binary | std::ios::trunc);
    out << "// Imported by `traintwin import " << o.format << " " << fs::path(o.trace).filename().string()
        << "` on the template " << fs::path(o.templ).filename().string() << ".\n"
        << doc.dump(2) << "\n";
    if (!out) throw std::runtime_error("cannot write " + o.out);
  }
  for (const auto& why : rows.invalid) std::printf("skipped invalid row %s\n", why.c_str());
  std::printf("%s: %d jobs from %zu rows (%d without GPUs, %d never ran, %d larger than the cluster, %d on which "
              "no layout of %s fits, %zu invalid; %d rounded up to whole nodes)",
              o.out.c_str(), summary.jobs, rows.jobs.size() + rows.invalid.size(), summary.no_gpus, summary.never_ran,
              summary.too_large, summary.no_layout, o.import.model.c_str(), rows.invalid.size(), summary.rounded);
  if (!summary.queues_added.empty()) {
    std::printf("; queues added:");
    for (const auto& q : summary.queues_added) std::printf(" %s", q.c_str());
  }
  std::printf("\n");
  return 0;
}

}  // namespace

Registered add_import(CLI::App& app) {
  auto o = std::make_shared<ImportCliOptions>();
  auto* sub = app.add_subcommand("import", "Turn a workload trace (sacct, Acme, Helios) into a scenario's jobs");
  sub->add_option("format", o->format, "sacct (sacct --parsable2, docs/sweeps.md), acme or helios")->required();
  sub->add_option("trace", o->trace, "the trace file")->required();
  sub->add_option("--template", o->templ, "scenario giving the cluster, queues and policies")->required();
  sub->add_option("--out", o->out, "scenario file to write")->required();
  sub->add_flag("--skip-invalid", o->skip_invalid, "leave malformed rows out (listed) instead of refusing the file");
  sub->add_option("--model", o->import.model, "model preset every job trains")->capture_default_str();
  sub->add_option("--seq-len", o->import.seq_len, "tokens per sequence")->capture_default_str();
  sub->add_option("--prefix", o->import.prefix, "job names: PREFIX-<job id>")->capture_default_str();
  sub->add_option("--name", o->import.name, "the scenario's name (default: the output file's stem)");
  return {sub, [o] { return run(*o); }};
}

}  // namespace tt::cli
