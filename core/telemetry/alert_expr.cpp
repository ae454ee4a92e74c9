#include "core/telemetry/alert_expr.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "core/telemetry/exposition.hpp"

namespace tt {
namespace {

// The character a backslash escape in a double-quoted PromQL string stands for: \n is a newline, \\ a backslash.
char unescape(char c) {
  switch (c) {
    case 'a': return '\a';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'v': return '\v';
    default: return c;  // \\ \" \'
  }
}

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  std::optional<AlertCondition> parse(std::string& error) {
    AlertCondition c;
    skip();
    std::string first = ident();
    if (first.empty()) return fail(error, "a metric name or an aggregation (sum, max, min, avg, count)");
    skip();
    if (peek('(')) {
      const Aggregation aggs[] = {Aggregation::Sum, Aggregation::Max, Aggregation::Min, Aggregation::Avg,
                                  Aggregation::Count};
      auto it = std::find_if(std::begin(aggs), std::end(aggs), [&](Aggregation a) { return first == to_string(a); });
      if (it == std::end(aggs)) return fail(error, "an aggregation (sum, max, min, avg, count) before \"(\"");
      c.aggregation = *it;
      ++pos_;
      skip();
      c.metric = ident();
      if (c.metric.empty()) return fail(error, "a metric name");
    } else {
      c.metric = first;
    }
    skip();
    if (peek('{')) {
      ++pos_;
      skip();
      while (!peek('}')) {
        LabelMatcher m;
        m.name = ident();
        if (m.name.empty()) return fail(error, "a label name or \"}\"");
        skip();
        if (s_.substr(pos_, 2) == "!=") {
          m.equal = false;
          pos_ += 2;
        } else if (peek('=') && s_.substr(pos_, 2) != "==" && s_.substr(pos_, 2) != "=~") {
          ++pos_;
        } else {
          return fail(error, "\"=\" or \"!=\" after the label name (regular expressions are not supported)");
        }
        skip();
        if (!peek('"')) return fail(error, "a label value in double quotes");
        ++pos_;
        while (pos_ < s_.size() && s_[pos_] != '"') {
          if (s_[pos_] == '\\' && pos_ + 1 < s_.size()) {  // PromQL's escapes (Go's); to_promql writes \\ \" \n
            ++pos_;
            m.value += unescape(s_[pos_++]);
            continue;
          }
          m.value += s_[pos_++];
        }
        if (!peek('"')) return fail(error, "the closing double quote of the label value");
        ++pos_;
        c.matchers.push_back(std::move(m));
        skip();
        if (peek(',')) {
          ++pos_;
          skip();
        } else if (!peek('}')) {
          return fail(error, "\",\" or \"}\"");
        }
      }
      ++pos_;
      skip();
    }
    if (c.aggregation != Aggregation::None) {
      if (!peek(')')) return fail(error, "\")\" closing the aggregation");
      ++pos_;
      skip();
    }
    const CompareOp ops[] = {CompareOp::Le, CompareOp::Ge, CompareOp::Eq, CompareOp::Ne, CompareOp::Lt, CompareOp::Gt};
    bool found = false;
    for (CompareOp op : ops) {
      std::string_view t = to_string(op);
      if (s_.substr(pos_, t.size()) == t) {
        c.op = op;
        pos_ += t.size();
        found = true;
        break;
      }
    }
    if (!found) return fail(error, "a comparison (<, <=, >, >=, ==, !=)");
    skip();
    const char* begin = s_.data() + pos_;
    double v = 0;
    auto [end, ec] = std::from_chars(begin, s_.data() + s_.size(), v);
    if (ec != std::errc() || !std::isfinite(v)) return fail(error, "a number to compare with");
    c.threshold = v;
    pos_ += static_cast<std::size_t>(end - begin);
    skip();
    if (pos_ != s_.size()) return fail(error, "the end of the expression");
    return c;
  }

 private:
  std::string_view s_;
  std::size_t pos_ = 0;

  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool peek(char c) const { return pos_ < s_.size() && s_[pos_] == c; }
  std::string ident() {
    std::size_t start = pos_;
    while (pos_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_' || s_[pos_] == ':'))
      ++pos_;
    if (pos_ > start && std::isdigit(static_cast<unsigned char>(s_[start]))) {
      pos_ = start;
      return {};
    }
    return std::string(s_.substr(start, pos_ - start));
  }
  std::nullopt_t fail(std::string& error, const std::string& expected) {
    error = "at character " + std::to_string(pos_ + 1) + ": expected " + expected;
    return std::nullopt;
  }
};

bool matches(const LabelSet& labels, const std::vector<LabelMatcher>& matchers) {
  for (const auto& m : matchers) {
    std::string value;  // an absent label matches as the empty string, as in PromQL
    for (const auto& [k, v] : labels)
      if (k == m.name) value = v;
    if ((value == m.value) != m.equal) return false;
  }
  return true;
}

}  // namespace

std::optional<AlertCondition> parse_alert_expr(std::string_view text, std::string& error) {
  return Parser(text).parse(error);
}

std::string to_promql(const AlertCondition& c) {
  std::string sel = c.metric;
  if (!c.matchers.empty()) {
    sel += '{';
    for (std::size_t i = 0; i < c.matchers.size(); ++i)
      sel += (i ? "," : "") + c.matchers[i].name + (c.matchers[i].equal ? "=\"" : "!=\"") +
             exposition_label_value(c.matchers[i].value) + '"';
    sel += '}';
  }
  if (c.aggregation != Aggregation::None) sel = std::string(to_string(c.aggregation)) + "(" + sel + ")";
  return sel + " " + to_string(c.op) + " " + exposition_number(c.threshold);
}

bool alert_selects(const AlertCondition& c, const LabelSet& labels) { return matches(labels, c.matchers); }

std::optional<double> alert_aggregate(const AlertCondition& c, const MetricRegistry::Family& fam) {
  double sum = 0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
  int n = 0;
  for (const auto& s : fam.series) {
    if (!s.present || !matches(s.labels, c.matchers)) continue;
    ++n;
    sum += s.value;
    lo = std::min(lo, s.value);
    hi = std::max(hi, s.value);
  }
  if (n == 0) return std::nullopt;
  switch (c.aggregation) {
    case Aggregation::Sum: return sum;
    case Aggregation::Max: return hi;
    case Aggregation::Min: return lo;
    case Aggregation::Avg: return sum / n;
    case Aggregation::Count: return n;
    case Aggregation::None: break;
  }
  return std::nullopt;
}

std::vector<std::pair<LabelSet, double>> alert_values(const AlertCondition& c, const MetricRegistry& registry) {
  std::vector<std::pair<LabelSet, double>> out;
  const MetricRegistry::Family* fam = registry.family(c.metric);
  if (!fam) return out;
  if (c.aggregation != Aggregation::None) {
    if (auto v = alert_aggregate(c, *fam); v && compare(*v, c.op, c.threshold)) out.emplace_back(LabelSet{}, *v);
    return out;
  }
  for (const auto& s : fam->series)
    if (s.present && matches(s.labels, c.matchers) && compare(s.value, c.op, c.threshold))
      out.emplace_back(s.labels, s.value);
  return out;
}

}  // namespace tt
