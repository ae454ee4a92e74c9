#include "core/calib/text_support.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace tt::calib {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(std::move(line));
    start = end + 1;
  }
  if (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

std::vector<std::string> split_ws(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::vector<std::string> split_csv(std::string_view s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = s.find(',', start);
    out.emplace_back(trim(s.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::optional<double> to_number(std::string_view s) {
  if (s.empty()) return std::nullopt;
  const std::string text(s);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<long long> to_integer(std::string_view s) {
  if (s.empty()) return std::nullopt;
  const std::string text(s);
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (end != text.c_str() + text.size() || errno != 0) return std::nullopt;
  return v;
}

namespace {

std::string normalized(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != '_' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Longest names first: "reduce" is inside "allreduce" and "reducescatter".
constexpr std::pair<const char*, Collective> kNames[] = {
    {"reducescatter", Collective::ReduceScatter}, {"allreduce", Collective::AllReduce},
    {"allgather", Collective::AllGather},         {"alltoall", Collective::AllToAll},
    {"sendrecv", Collective::SendRecv},           {"broadcast", Collective::Broadcast},
    {"reduce", Collective::Reduce}};

}  // namespace

std::optional<Collective> collective_from_name(std::string_view name) {
  const auto slash = name.find_last_of('/');
  if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
  std::string n = normalized(name);
  for (const char* suffix : {"perfmpi", "perf"})
    if (const auto at = n.rfind(suffix); at != std::string::npos && at + std::string(suffix).size() == n.size()) {
      n.erase(at);
      break;
    }
  for (const auto& [text, c] : kNames)
    if (n == text) return c;
  return std::nullopt;
}

std::optional<Collective> collective_in_file_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  std::string n = normalized(slash == std::string::npos ? path : path.substr(slash + 1));
  std::optional<Collective> found;
  for (const auto& [text, c] : kNames) {
    const auto at = n.find(text);
    if (at == std::string::npos) continue;
    if (found) return std::nullopt;
    found = c;
    n.erase(at, std::string(text).size());
  }
  return found;
}

void fail_line(const std::string& file, std::size_t line, const std::string& expected) {
  throw InputError(file, "line " + std::to_string(line), expected);
}

}  // namespace tt::calib
