// Running the traintwin binary from tests: exit code and combined output; files and lines of its output.
#pragma once

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace tt::testing {

struct CliResult {
  int exit_code = -1;
  std::string output;
};

inline CliResult run_cli(const std::string& args) {
  std::string cmd = std::string(TT_CLI) + " " + args + " 2>&1";
  CliResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The lines of `text`, without their "\n".
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

inline std::filesystem::path scratch_dir(const std::string& name) {
  auto dir = std::filesystem::path(TT_BINARY_DIR) / "test-out" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// scenarios/*.json, sorted.
inline std::vector<std::filesystem::path> bundled_scenarios() {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(TT_SOURCE_DIR) / "scenarios"))
    if (entry.path().extension() == ".json") out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

// "kind job nodes" of each decision of a decisions.txt (reports/decision_log.hpp): what two drivers must agree on
// (times differ, and reasons quote what each driver saw).
inline std::vector<std::string> decision_columns(const std::string& decisions_txt) {
  std::vector<std::string> out;
  for (const std::string& line : lines_of(decisions_txt)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::size_t at = line.find_first_not_of(' ');
    while (at != std::string::npos && fields.size() < 4) {
      const std::size_t end = line.find("  ", at);
      fields.push_back(line.substr(at, end == std::string::npos ? std::string::npos : end - at));
      at = end == std::string::npos ? end : line.find_first_not_of(' ', end);
    }
    if (fields.size() == 4) out.push_back(fields[1] + " " + fields[2] + " " + fields[3]);
  }
  return out;
}

}  // namespace tt::testing
