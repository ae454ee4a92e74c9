// The fleet verdict: every node's inventory compared with a baseline (the matrix where it states a value, else the
// majority of the fleet), nodes grouped by sameness, each difference classed blocking or warning, and the
// compatibility rules (core/preflight/rules.hpp) applied to each node's versions. Deterministic: the same inventories
// in any order give the same verdict.
#pragma once

#include <string>
#include <vector>

#include "core/preflight/inventory.hpp"
#include "core/preflight/matrix.hpp"
#include "core/preflight/rules.hpp"

namespace tt::preflight {

// One attribute compared across nodes: its name in reports, how a node is compared with the baseline, what a
// difference costs. Kernel parameters are attributes named "kernel_params/<sysctl name>".
enum class Compare { Same, AtLeast, AtMost };
struct Attribute {
  std::string name;
  Compare compare;
  Severity severity;
  std::string rule;     // the rule a difference breaks, "" when none
  std::string failure;  // what a difference leads to
};
const std::vector<Attribute>& attributes();  // the fixed ones, in report order (kernel parameters follow)
Attribute kernel_param_attribute(const std::string& sysctl);

struct Difference {
  std::string check;     // an attribute name, or "rule:<id>"
  Severity severity;
  std::string rule;      // "" when the difference breaks no published rule
  std::vector<std::string> hosts;  // sorted
  std::string found;
  std::string expected;
  std::string failure;
};

struct Verdict {
  std::string baseline;                          // "majority of 16 nodes" or "matrix m.json, release 2026.11"
  std::vector<std::vector<std::string>> groups;  // hosts alike in every attribute; largest group first
  std::vector<std::string> checks;               // every check made, in report order
  std::vector<Difference> differences;           // blocking first, then in check order
  std::size_t nodes = 0;
  bool blocking() const;
  int count(Severity s) const;
};

Verdict judge_fleet(const std::vector<Inventory>& fleet, const Matrix* matrix);

}  // namespace tt::preflight
