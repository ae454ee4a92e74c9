// Measurement: one measured collective call (what nccl-tests, NCCL's tuner measurement CSV or a published bus-bandwidth
// table says a call of `size` bytes took), and the readers that turn those files into measurements. Pure parsing: the
// readers take the file's text and its name, and throw InputError naming the file and the line (text) or JSON pointer
// (nccl-tests -J output) with what was expected. load_measurements() picks the reader by content.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/comm.hpp"
#include "core/model/units.hpp"

namespace tt {

struct Measurement {
  Collective collective = Collective::AllReduce;
  int ranks = 0;  // 0: the file does not say
  int nodes = 0;  // 0: the file does not say
  Bytes size;
  Seconds time;  // of one call
  std::optional<Algorithm> algorithm;  // when the file pins it (NCCL_ALGO, the CSV's column, the table's title)
  std::optional<Protocol> protocol;
  bool in_place = false;
  std::string where;  // "file:line" or "file#/results/3/in_place"
};

// nccl-tests' text output (common.cu / util.cu): one or more result tables, with or without the root and error
// columns, out-of-place and in-place, lines optionally prefixed by an MPI launcher ("[1,0]<stdout>:", "0: ", "[0] ").
std::vector<Measurement> parse_nccl_tests_text(const std::string& text, const std::string& file);
// nccl-tests' JSON output (-J FILE, util.cu JSON_FILE_VERSION 2): config.devices, results[].{size, out_of_place,
// in_place}, the program in args[0] and NCCL_ALGO / NCCL_PROTO in env.
std::vector<Measurement> parse_nccl_tests_json(const std::string& text, const std::string& file);
// NCCL's tuner measurement CSV (ext-tuner/example/scripts/optimize_config.py's input): a header naming
// collective,size_bytes,algorithm,protocol,channels,nodes,ranks,pipeOps,regBuff,bandwidth_gbps,latency_us; latency_us
// is one call's time. '#' lines are comments.
std::vector<Measurement> parse_tuner_csv(const std::string& text, const std::string& file);
// A published table (tests/data/nccl/*.busbw.csv, *.time.csv): '# key: value' lines (source, collective, ranks,
// nodes, optional algorithm and protocol, in_place), then the header "size,busbw_GBps" (bus bandwidth) or
// "size,time_us" (the time of one call, as nccl-tests prints it: more digits than busbw's two decimals at small sizes)
// and one row per size.
std::vector<Measurement> parse_busbw_table(const std::string& text, const std::string& file);

// Reads `path` and hands it to the reader its content calls for.
std::vector<Measurement> load_measurements(const std::string& path);

// nccl-tests' bus-bandwidth factor (the tests' *GetBw functions): busbw = algbw x factor.
double busbw_factor(Collective c, int ranks);

}  // namespace tt
