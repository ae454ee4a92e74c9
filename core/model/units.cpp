#include "core/model/units.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace tt {
namespace {

struct Split {
  double number;
  std::string_view suffix;
};

// A finite, non-negative number followed by a unit suffix (spaces between are allowed).
std::optional<Split> split_number(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr == text.data()) return std::nullopt;
  if (!std::isfinite(v) || v < 0) return std::nullopt;
  std::string_view rest(ptr, text.data() + text.size() - ptr);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  return Split{v, rest};
}

template <std::size_t N>
std::optional<double> lookup(std::string_view suffix, const std::pair<std::string_view, double> (&table)[N]) {
  for (const auto& [name, factor] : table)
    if (suffix == name) return factor;
  return std::nullopt;
}

constexpr std::pair<std::string_view, double> kTime[] = {
    {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}, {"m", 60.0}, {"min", 60.0}, {"h", 3600.0}, {"d", 86400.0}};

constexpr std::pair<std::string_view, double> kBytes[] = {
    {"B", 1.0},     {"KB", 1e3},        {"MB", 1e6},        {"GB", 1e9},        {"TB", 1e12},        {"PB", 1e15},
    {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}, {"PiB", 1125899906842624.0}};

constexpr std::pair<std::string_view, double> kBits[] = {
    {"bps", 1.0 / 8}, {"Kbps", 1e3 / 8}, {"Mbps", 1e6 / 8}, {"Gbps", 1e9 / 8}, {"Tbps", 1e12 / 8}};

constexpr std::pair<std::string_view, double> kFlops[] = {
    {"FLOPS", 1.0}, {"GFLOPS", 1e9}, {"TFLOPS", 1e12}, {"PFLOPS", 1e15}, {"EFLOPS", 1e18}};

std::string fixed(double v, const char* unit) {
  char buf[64];
  int decimals = v >= 100 ? 0 : v >= 10 ? 1 : 2;
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, v, unit);
  return buf;
}

}  // namespace

// One or more number-unit pairs: "90s", "1h30m", "2d 4h".
std::optional<Seconds> parse_seconds(std::string_view text) {
  double total = 0;
  bool any = false;
  while (true) {
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    if (text.empty()) break;
    auto s = split_number(text);
    if (!s) return std::nullopt;
    std::size_t unit_len = 0;
    while (unit_len < s->suffix.size() && std::isalpha(static_cast<unsigned char>(s->suffix[unit_len]))) ++unit_len;
    auto f = lookup(s->suffix.substr(0, unit_len), kTime);
    if (!f) return std::nullopt;
    total += s->number * *f;
    any = true;
    text = s->suffix.substr(unit_len);
  }
  if (!any) return std::nullopt;
  return Seconds(total);
}

std::optional<Bytes> parse_bytes(std::string_view text) {
  auto s = split_number(text);
  if (!s) return std::nullopt;
  auto f = lookup(s->suffix, kBytes);
  if (!f) return std::nullopt;
  return Bytes(s->number * *f);
}

std::optional<BytesPerSecond> parse_bandwidth(std::string_view text) {
  auto s = split_number(text);
  if (!s) return std::nullopt;
  if (auto f = lookup(s->suffix, kBits)) return BytesPerSecond(s->number * *f);
  std::string_view suffix = s->suffix;
  if (suffix.size() > 2 && suffix.substr(suffix.size() - 2) == "/s") {
    if (auto f = lookup(suffix.substr(0, suffix.size() - 2), kBytes)) return BytesPerSecond(s->number * *f);
  }
  return std::nullopt;
}

std::optional<FlopsPerSecond> parse_flops_rate(std::string_view text) {
  auto s = split_number(text);
  if (!s) return std::nullopt;
  auto f = lookup(s->suffix, kFlops);
  if (!f) return std::nullopt;
  return FlopsPerSecond(s->number * *f);
}

std::string format_seconds(Seconds s) {
  double v = s.value;
  char buf[64];
  if (v == 0) return "0 s";
  if (v < 1e-3) return fixed(v * 1e6, "us");
  if (v < 1.0) return fixed(v * 1e3, "ms");
  if (v < 120.0) return fixed(v, "s");
  if (v < 3600.0) {
    std::snprintf(buf, sizeof buf, "%dm %02ds", static_cast<int>(v / 60), static_cast<int>(std::fmod(v, 60.0)));
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%dh %02dm", static_cast<int>(v / 3600), static_cast<int>(std::fmod(v, 3600.0) / 60));
  return buf;
}

std::string format_bytes(Bytes b) {
  double v = b.value;
  if (v >= 1099511627776.0) return fixed(v / 1099511627776.0, "TiB");
  if (v >= 1073741824.0) return fixed(v / 1073741824.0, "GiB");
  if (v >= 1048576.0) return fixed(v / 1048576.0, "MiB");
  if (v >= 1024.0) return fixed(v / 1024.0, "KiB");
  return fixed(v, "B");
}

std::string format_bandwidth(BytesPerSecond r) {
  double bits = r.value * 8;
  if (bits >= 1e12) return fixed(bits / 1e12, "Tb/s");
  if (bits >= 1e9) return fixed(bits / 1e9, "Gb/s");
  return fixed(bits / 1e6, "Mb/s");
}

}  // namespace tt
