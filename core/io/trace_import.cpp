#include "core/io/trace_import.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "core/io/input_error.hpp"
#include "core/io/scenario_reader.hpp"
#include "core/model/model_spec.hpp"
#include "core/model/workload.hpp"

namespace tt {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string seconds_text(double s) { return std::to_string(std::llround(s)) + "s"; }

// Iterations that take `seconds` of training at the compute-only rate.
std::int64_t iterations_for(double seconds, const ModelSpec& m, int seq_len, int global_batch, int gpus,
                            const Topology& topo, double efficiency) {
  const double flops = m.train_flops_per_token(seq_len) * seq_len * global_batch;
  const double rate = gpus * topo.gpu().dense_bf16.value * efficiency;
  return std::max<std::int64_t>(1, std::llround(seconds / (flops / rate)));
}

}  // namespace

json import_scenario(const json& tmpl, const std::string& template_file, const std::string& out_file,
                     const TraceRows& rows, const ImportOptions& o, ImportSummary& summary) {
  if (!tmpl.is_object() || !tmpl.contains("topology"))
    throw InputError(template_file, "/topology", "a template scenario with a topology");
  json doc = tmpl;
  Topology topo;
  if (tmpl["topology"].is_string()) {
    const fs::path path = fs::absolute(fs::path(template_file).parent_path() / tmpl["topology"].get<std::string>());
    topo = read_topology_file(path.string());
    doc["topology"] = fs::relative(path, fs::absolute(fs::path(out_file)).parent_path()).string();
  } else {
    topo = read_topology(tmpl["topology"], template_file, "/topology");
  }
  const auto model = find_model_preset(o.model);
  if (!model) throw InputError("--model", "", "a model preset, found \"" + o.model + "\"");
  double efficiency = 0.45;
  if (tmpl.contains("perf") && tmpl["perf"].contains("compute_efficiency") &&
      tmpl["perf"]["compute_efficiency"].is_number())
    efficiency = tmpl["perf"]["compute_efficiency"].get<double>();

  std::set<std::string> classes, queues;
  if (tmpl.contains("priority_classes"))
    for (const auto& c : tmpl["priority_classes"]) classes.insert(c.value("name", ""));
  if (!doc.contains("queues")) doc["queues"] = json::array();
  for (const auto& q : doc["queues"]) queues.insert(q.value("name", ""));

  std::vector<const TraceJob*> ran;
  for (const TraceJob& j : rows.jobs) {
    if (j.gpus == 0) ++summary.no_gpus;
    else if (!j.start || !j.end) ++summary.never_ran;
    else if (j.gpus > topo.total_gpus()) ++summary.too_large;
    else ran.push_back(&j);
  }
  std::stable_sort(ran.begin(), ran.end(), [](const TraceJob* a, const TraceJob* b) { return a->submit < b->submit; });
  const double t0 = ran.empty() ? 0 : ran.front()->submit;
  const int per_node = topo.gpus_per_node();
  json jobs = json::array();
  std::set<std::string> names;
  for (const TraceJob* j : ran) {
    int gpus = j->gpus;
    if (gpus > per_node && gpus % per_node) {
      gpus = (gpus / per_node + 1) * per_node;
      ++summary.rounded;
      if (gpus > topo.total_gpus()) {
        ++summary.too_large;
        continue;
      }
    }
    const auto par = choose_parallelism(gpus, *model, per_node, topo.gpu().memory);
    if (!par) {
      ++summary.no_layout;
      continue;
    }
    if (!queues.count(j->queue)) {
      queues.insert(j->queue);
      doc["queues"].push_back({{"name", j->queue}, {"gpu_quota", topo.total_gpus()}});
      summary.queues_added.push_back(j->queue);
    }
    std::string name = o.prefix + "-" + j->id;
    if (names.count(name)) name += "-l" + std::to_string(j->line);
    names.insert(name);
    const int global_batch = par->dp * std::max(8, 4 * par->pp);
    json job = {{"name", name},
                {"queue", j->queue},
                {"submit", seconds_text(j->submit - t0)},
                {"gpus", gpus},
                {"model", o.model},
                {"parallel", {{"tp", par->tp}, {"pp", par->pp}, {"dp", par->dp}}},
                {"iterations", iterations_for(*j->end - *j->start, *model, o.seq_len, global_batch, gpus, topo,
                                              efficiency)},
                {"global_batch", global_batch},
                {"seq_len", o.seq_len}};
    if (j->time_limit && *j->time_limit > 0) job["estimated_runtime"] = seconds_text(*j->time_limit);
    if (!j->qos.empty() && classes.count(j->qos)) job["priority_class"] = j->qos;
    jobs.push_back(std::move(job));
  }
  if (jobs.empty()) throw InputError(template_file, "/jobs", "at least one traced job that ran on GPUs; none did");
  summary.jobs = static_cast<int>(jobs.size());
  doc["jobs"] = std::move(jobs);
  doc.erase("workload");
  doc["name"] = o.name;
  return doc;
}

}  // namespace tt
