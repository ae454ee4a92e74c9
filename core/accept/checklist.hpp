// The acceptance checklist: the seven things verified after a deployment, and one result per item. Pure values; who
// measures an item (the real driver on this machine, the twin for a planned cluster) fills ItemResult, and
// reports/accept.hpp turns a Checklist into JUnit, JSON and HTML.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace tt::accept {

enum class Item { Health, Collective, Kernels, Scheduler, Observability, NodeFailure, Checkpoint };
inline constexpr std::array<Item, 7> kItems = {Item::Health,        Item::Collective,  Item::Kernels,   Item::Scheduler,
                                               Item::Observability, Item::NodeFailure, Item::Checkpoint};

const char* item_id(Item item);     // "health", "collective", ... (JUnit testcase names, fault-injection names)
const char* item_title(Item item);  // one line saying what the item verifies
std::optional<Item> parse_item(const std::string& id);

enum class Verdict { Passed, Failed, Skipped };
const char* to_string(Verdict v);  // "passed", "failed", "skipped"

struct ItemResult {
  Item item = Item::Health;
  Verdict verdict = Verdict::Failed;
  std::string measured{};  // the figure found, with its unit
  std::string expected{};  // the expectation it was held to
  std::string evidence{};  // where it came from (endpoint, file, decision), one fact per line
  std::string failure{};   // why it failed or was skipped; empty when it passed
};

struct Checklist {
  std::string target;  // "this machine (cpu:4)", "twin of scenario S on topology T"
  std::vector<ItemResult> items;
  double wall_seconds = 0;  // not part of the verdict
  bool passed() const;      // every item passed or was skipped
  std::vector<std::string> failed_items() const;
};

}  // namespace tt::accept
