#include "reports/text.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace tt {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Length of the valid UTF-8 sequence at s[i], or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
  std::uint8_t b = byte(i);
  std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  if (n == 2 && b < 0xC2) return 0;                          // overlong
  if (n == 3 && b == 0xE0 && byte(i + 1) < 0xA0) return 0;   // overlong
  if (n == 3 && b == 0xED && byte(i + 1) >= 0xA0) return 0;  // surrogate
  if (n == 4 && (b > 0xF4 || (b == 0xF0 && byte(i + 1) < 0x90) || (b == 0xF4 && byte(i + 1) >= 0x90))) return 0;
  return n;
}

std::string escape(std::string_view s, bool keep_breaks) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (std::size_t i = 0; i < s.size();) {
    char c = s[i];
    std::size_t n = utf8_length(s, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    if (n > 1) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '\n':
        out += keep_breaks ? "\n" : "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      case '\t':
        out += keep_breaks ? "\t" : "&#9;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F)
          out += kReplacement;
        else
          out += c;
    }
    ++i;
  }
  return out;
}

}  // namespace

std::string utf8_valid(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = utf8_length(s, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string xml_escape(std::string_view text) { return escape(text, false); }
std::string xml_escape_text(std::string_view text) { return escape(text, true); }

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string format_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";  // also -0
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

std::string format_duration(double v) {
  if (!std::isfinite(v)) return format_number(v);
  if (v < 0) return std::string("-").append(format_duration(-v));
  if (v < 60) return (v == 0 ? std::string("0") : format_fixed(v, v < 10 ? 2 : 1)).append(" s");
  char buf[64];
  long long s = std::llround(v);
  if (s < 3600)
    std::snprintf(buf, sizeof buf, "%lldm %02llds", s / 60, s % 60);
  else if (s < 100 * 3600)
    std::snprintf(buf, sizeof buf, "%lldh %02lldm", s / 3600, s % 3600 / 60);
  else
    std::snprintf(buf, sizeof buf, "%lldd %02lldh", s / 86400, s % 86400 / 3600);
  return buf;
}

std::string format_fixed(double v, int decimals) {
  if (!std::isfinite(v)) return format_number(v);
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  std::string out(buf, end);
  if (out.find_first_not_of("-0.") == std::string::npos && out[0] == '-') out.erase(0, 1);  // "-0.00" -> "0.00"
  return out;
}

}  // namespace tt
