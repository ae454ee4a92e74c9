// bench_journal: what the real driver's durable journal (real/journal.hpp, docs/reliability.md) costs. Every event the
// Controller is handed is appended as one record and synced (fdatasync) before the Controller sees it, so the time of
// one synced append bounds how fast a real driver can take events, and the sum over a run is its journaling overhead.
// Appends `--records` records of `--bytes` bytes (an observed event's JSON is 150-300 bytes) to a fresh journal in
// `--dir` (default: the system's temporary directory; point it at the file system a run directory lives on), synced
// one by one as the driver does, then unsynced for comparison, then reads the journal back as a resumed driver does.
// Prints the median, p99 and worst synced append, appends per second, and the read-back rate. Never fails on time.
//
//   bench_journal [--records N] [--bytes B] [--dir DIR] [--json]

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "real/journal.hpp"

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

// Seconds of each append of `records` records of `bytes` bytes, with or without a sync each.
std::vector<double> append_all(const fs::path& file, int records, int bytes, bool sync) {
  tt::real::Journal journal = tt::real::Journal::create(file);
  std::string payload(static_cast<std::size_t>(bytes), 'x');
  std::vector<double> seconds;
  seconds.reserve(static_cast<std::size_t>(records));
  for (int i = 0; i < records; ++i) {
    payload[static_cast<std::size_t>(i) % payload.size()] = static_cast<char>('a' + i % 26);
    const auto t0 = Clock::now();
    journal.append('E', payload, sync);
    seconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_journal: the cost of the real driver's synced journal appends"};
  int records = 2000, bytes = 220;
  std::string dir = fs::temp_directory_path().string();
  bool as_json = false;
  app.add_option("--records", records, "records to append")->check(CLI::Range(10, 10'000'000));
  app.add_option("--bytes", bytes, "payload bytes per record")->check(CLI::Range(1, 1 << 20));
  app.add_option("--dir", dir, "directory to write the journal in (the file system of your run directories)")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--json", as_json, "one JSON object instead of text");
  CLI11_PARSE(app, argc, argv);

  const fs::path file = fs::path(dir) / ("bench-journal-" + std::to_string(::getpid()));
  const std::vector<double> synced = append_all(file, records, bytes, true);
  const std::vector<double> unsynced = append_all(file, records, bytes, false);
  const auto t0 = Clock::now();
  const tt::real::JournalContents back = tt::real::read_journal(file);
  const double read_s = std::chrono::duration<double>(Clock::now() - t0).count();
  fs::remove(file);

  double synced_total = 0, unsynced_total = 0;
  for (double s : synced) synced_total += s;
  for (double s : unsynced) unsynced_total += s;
  const double median_us = quantile(synced, 0.5) * 1e6, p99_us = quantile(synced, 0.99) * 1e6;
  const double worst_us = *std::max_element(synced.begin(), synced.end()) * 1e6;
  const double per_s = records / synced_total, unsynced_per_s = records / unsynced_total;
  const double read_per_s = static_cast<double>(back.records.size()) / read_s;
  if (as_json) {
    std::printf("%s\n", nlohmann::json{{"records", records},
                                       {"bytes", bytes},
                                       {"dir", dir},
                                       {"synced_median_us", median_us},
                                       {"synced_p99_us", p99_us},
                                       {"synced_worst_us", worst_us},
                                       {"synced_appends_per_s", per_s},
                                       {"unsynced_appends_per_s", unsynced_per_s},
                                       {"read_back_records", back.records.size()},
                                       {"read_back_records_per_s", read_per_s}}
                            .dump()
                            .c_str());
    return 0;
  }
  std::printf("journal in %s: %d records of %d bytes\n", dir.c_str(), records, bytes);
  std::printf("synced append (write + fdatasync, as the driver does per event): median %.0f us, p99 %.0f us, worst %.0f us"
              ", %.0f appends/s\n",
              median_us, p99_us, worst_us, per_s);
  std::printf("unsynced append (write only): %.0f appends/s (x%.1f)\n", unsynced_per_s, unsynced_per_s / per_s);
  std::printf("read back and checked (a resumed driver's open): %zu records, %.0f records/s\n", back.records.size(),
              read_per_s);
  return 0;
}
