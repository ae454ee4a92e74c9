// A trace (core/io/trace_reader.hpp) replayed as a scenario: the jobs of a template scenario's cluster and policies
// replaced by one job per traced job that ran on GPUs. Each keeps its submit time (from the first submit), its GPUs
// (above a node, rounded up to whole nodes: traintwin places multi-node jobs on whole nodes), its queue (a queue the
// template lacks is added with the cluster's GPUs as quota), its QOS as a priority class when the template has one of
// that name, its time limit as the declared run time (backfill), and its run time (end - start) as iterations of the
// chosen model at the compute-only rate, as generated workloads do (docs/scenario-format.md, Workload).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/io/trace_reader.hpp"

namespace tt {

struct ImportOptions {
  std::string name;                // the scenario's name
  std::string model = "llama3-8b"; // preset every job trains
  int seq_len = 4096;
  std::string prefix = "t";        // job names: prefix-<job id>
};

struct ImportSummary {
  int jobs = 0;
  int no_gpus = 0;     // CPU-only jobs, left out
  int never_ran = 0;   // no start or no end (pending, cancelled before starting), left out
  int too_large = 0;   // more GPUs than the cluster, left out
  int no_layout = 0;   // no parallel layout of the model fits its GPUs' memory (a 1-GPU job of an 8B model), left out
  int rounded = 0;     // GPUs rounded up to whole nodes
  std::vector<std::string> queues_added;
};

// `template_file` locates the template for its relative topology path; `out_file` is where the scenario will be
// written (its topology path is made relative to it). Throws InputError for a bad template.
nlohmann::json import_scenario(const nlohmann::json& template_doc, const std::string& template_file,
                               const std::string& out_file, const TraceRows& rows, const ImportOptions& options,
                               ImportSummary& summary);

}  // namespace tt
