// Every reader the fuzz targets drive, by name, so that the libFuzzer targets (fuzz_target.cpp) and the regression
// test of what they found (tests/fuzz/) hand an input to exactly the same code. read_input() throws what the reader
// throws (InputError for bad input: nothing else is allowed) and std::logic_error when a property the reader promises
// fails (an alert expression that does not survive to_promql and back; a report that regresses against itself).
#pragma once

#include <string>
#include <vector>

namespace tt::fuzz {

// scenario, topology, workload, alert_expr, inventory, matrix, nccl_tests, tuner_csv, diff, observed_log, trace.
const std::vector<std::string>& reader_names();

// `source_dir`: the source tree, against which a scenario's relative topology path ("../topologies/x.json") is read.
void read_input(const std::string& reader, const std::string& bytes, const std::string& source_dir);

}  // namespace tt::fuzz
