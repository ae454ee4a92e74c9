// `traintwin size`: answers a sizing question over one parameter of a sweep spec, running points through the same
// resumable pool as `traintwin sweep`.
//  smallest:P / largest:P  the smallest (largest) value of parameter P whose point meets every constraint, found by
//                          bisection over P's values in the spec's order; it assumes that a point meets the
//                          constraints whenever the point before (after) it does (monotone), and checks both ends.
//  max:F / min:F           the value of the one varying parameter with the highest (lowest) mean of figure F among
//                          the points meeting the constraints; every point runs.
// A point meets "F <= x" only when its whole confidence interval does (high <= x; low >= x for >=): the answer holds
// at the spec's confidence, seed to seed, and the report gives the interval of every point it ran.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/sweep/interval.hpp"
#include "core/sweep/sweep_spec.hpp"
#include "sweep/runner.hpp"

namespace tt::sweep {

struct Constraint {
  std::string figure;
  std::string op;  // <=, <, >=, >
  double value = 0;
  std::string text;  // as written
};

struct Objective {
  enum class Kind { Smallest, Largest, Max, Min };
  Kind kind = Kind::Smallest;
  std::string target;  // a parameter label or pointer (smallest, largest) or a figure name (max, min)
};

// "wait_p95 <= 1h" (a duration for a figure in seconds); "smallest:/topology/nodes". InputError when malformed.
Constraint parse_constraint(const SweepSpec& spec, const std::string& text);
Objective parse_objective(const SweepSpec& spec, const std::string& text);

struct Evaluated {
  int value_index = 0;
  std::vector<std::optional<Interval>> figures;  // by spec.figures
  bool meets = false;
  std::string why;  // the first constraint it misses, with the interval
};

struct SizeAnswer {
  std::string parameter;  // label
  std::optional<int> value_index;  // nullopt: no value meets the constraints
  std::vector<Evaluated> evaluated;  // in value order
  std::vector<int> indistinguishable;  // max/min: values whose interval overlaps the best's
  std::string text;  // the answer in words, with its uncertainty
};

SizeAnswer size(const SweepSpec& spec, const Objective& objective, const std::vector<Constraint>& constraints,
                const SweepOptions& options);

nlohmann::json size_json(const SweepSpec& spec, const Objective& objective, const std::vector<Constraint>& constraints,
                         const SizeAnswer& answer);

}  // namespace tt::sweep
