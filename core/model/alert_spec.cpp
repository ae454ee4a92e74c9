#include "core/model/alert_spec.hpp"

namespace tt {

const char* to_string(Aggregation a) {
  switch (a) {
    case Aggregation::None: return "";
    case Aggregation::Sum: return "sum";
    case Aggregation::Max: return "max";
    case Aggregation::Min: return "min";
    case Aggregation::Avg: return "avg";
    case Aggregation::Count: return "count";
  }
  return "";
}

const char* to_string(CompareOp op) {
  switch (op) {
    case CompareOp::Lt: return "<";
    case CompareOp::Le: return "<=";
    case CompareOp::Gt: return ">";
    case CompareOp::Ge: return ">=";
    case CompareOp::Eq: return "==";
    case CompareOp::Ne: return "!=";
  }
  return "";
}

bool compare(double v, CompareOp op, double t) {
  switch (op) {
    case CompareOp::Lt: return v < t;
    case CompareOp::Le: return v <= t;
    case CompareOp::Gt: return v > t;
    case CompareOp::Ge: return v >= t;
    case CompareOp::Eq: return v == t;
    case CompareOp::Ne: return v != t;
  }
  return false;
}

}  // namespace tt
