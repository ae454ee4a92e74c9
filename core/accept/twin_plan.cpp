#include "core/accept/twin_plan.hpp"

#include "core/plan/comm_sweep.hpp"

namespace tt::accept {

Noise default_twin_comm_noise() {
  return {sigma_from_mape(0.063),
          "log-normal; sigma from the shipped cost model's 6.3% mean absolute error against the public Azure ND "
          "H100 v5 all-reduce table (docs/calibration.md), sigma = MAE x sqrt(pi / 2)"};
}

Noise default_twin_time_noise() {
  return {0.1, "assumed: 10% log-normal on detection, recovery, alert and checkpoint times (no public measurement)"};
}

AcceptPlan twin_comm_plan(const Topology& topo, int ranks, int nodes, const std::vector<Bytes>& sizes,
                          const CommOverrides& overrides, const Noise& noise, double false_failure) {
  const std::vector<int> gpus = pick_gpus(topo, ranks, nodes);
  CommPlanner planner(topo, comm_constants(topo.gpu(), overrides));
  const Sweep sweep = plan_sweep(planner, Collective::AllReduce, gpus, sizes);
  AcceptPlan p;
  p.topology = topo.name();
  p.ranks = ranks;
  p.nodes = sweep.nodes;
  p.model = "the twin's CommPlanner on " + std::to_string(ranks) + " x " + topo.gpu().name + ": " +
            planner.constants().source;
  p.target_false_failure = false_failure;
  p.comm_noise = noise;
  p.time_noise = default_twin_time_noise();
  for (const auto& row : sweep.rows) p.comm.push_back({row.size, row.predicted.busbw, BytesPerSecond(0), 0});
  set_comm_thresholds(p);
  return p;
}

void add_time_expectations(AcceptPlan& p, const RunRecord& rec, const Scenario& sc, const Noise& noise) {
  p.time_noise = noise;
  const double rate = p.target_false_failure;
  double detect = 0, recover = 0;
  int failures = 0, recovered = 0;
  for (const auto& j : rec.jobs)
    for (const auto& f : j.failures) {
      if (f.kind != "node_crash") continue;
      ++failures;
      detect += (f.detect_time - f.fault_time).value;
      if (f.recovered_time) {
        ++recovered;
        recover += (*f.recovered_time - f.fault_time).value;
      }
    }
  const std::string sim = "simulated run of " + rec.scenario;
  if (failures)
    p.times.push_back(time_expectation("node_failure", "detect", Seconds(detect / failures), noise, rate,
                                       sim + ": mean fault-to-detection over " + std::to_string(failures) +
                                           " node crash(es)"));
  if (recovered)
    p.times.push_back(time_expectation("node_failure", "recover", Seconds(recover / recovered), noise, rate,
                                       sim + ": mean fault-to-training-resumed over " + std::to_string(recovered) +
                                           " recovery(ies)"));
  for (const auto& a : rec.alerts) {
    Seconds fault(-1);
    for (Seconds t : rec.fault_times)
      if (t <= a.fired_at) fault = t;
    if (fault.value < 0) continue;
    p.times.push_back(time_expectation("observability", "alert_latency", a.fired_at - fault, noise, rate,
                                       sim + ": alert " + a.name + " fired after the fault before it"));
    break;
  }
  double write = 0;
  int writes = 0;
  for (const auto& j : rec.jobs)
    for (Seconds w : j.checkpoint_write_times) {
      write += w.value;
      ++writes;
    }
  if (writes)
    p.times.push_back(time_expectation("checkpoint", "checkpoint_write", Seconds(write / writes), noise, rate,
                                       sim + ": mean of " + std::to_string(writes) + " checkpoint writes"));
  p.times.push_back(time_expectation("checkpoint", "checkpoint_restore", sc.recovery.restart_overhead, noise, rate,
                                     "the scenario's recovery.restart_overhead (reschedule, start, checkpoint load)"));
}

}  // namespace tt::accept
