#include "core/accept/checklist.hpp"

namespace tt::accept {

const char* item_id(Item item) {
  switch (item) {
    case Item::Health: return "health";
    case Item::Collective: return "collective";
    case Item::Kernels: return "kernels";
    case Item::Scheduler: return "scheduler";
    case Item::Observability: return "observability";
    case Item::NodeFailure: return "node_failure";
    case Item::Checkpoint: return "checkpoint";
  }
  return "?";
}

const char* item_title(Item item) {
  switch (item) {
    case Item::Health: return "component health endpoints answer and no instance restarts over and over";
    case Item::Collective: return "a multi-rank all-reduce is correct, with the bus bandwidth expected per size";
    case Item::Kernels: return "the operator library loads and a sample attention matches its fp64 baseline";
    case Item::Scheduler: return "the scheduler allocates and every job moves along the allowed state graph";
    case Item::Observability: return "metrics are scraped, an event is found in the logs, an alert fires";
    case Item::NodeFailure: return "a node failure is detected and the job recovers within the expected time";
    case Item::Checkpoint: return "a training run writes a checkpoint that verifies, restores and continues bit-identical";
  }
  return "?";
}

std::optional<Item> parse_item(const std::string& id) {
  for (Item i : kItems)
    if (id == item_id(i)) return i;
  return std::nullopt;
}

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::Passed: return "passed";
    case Verdict::Failed: return "failed";
    case Verdict::Skipped: return "skipped";
  }
  return "?";
}

bool Checklist::passed() const { return failed_items().empty(); }

std::vector<std::string> Checklist::failed_items() const {
  std::vector<std::string> out;
  for (const auto& r : items)
    if (r.verdict == Verdict::Failed) out.emplace_back(item_id(r.item));
  return out;
}

}  // namespace tt::accept
