// Small strict pieces the measurement readers share: line splitting, whole-token numbers, collective names as
// nccl-tests' binaries and NCCL's tuner files spell them. Internal to core/calib.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/input_error.hpp"
#include "core/model/comm.hpp"

namespace tt::calib {

std::vector<std::string> split_lines(const std::string& text);  // without '\n' and a trailing '\r'
std::vector<std::string> split_ws(std::string_view s);
std::vector<std::string> split_csv(std::string_view s);  // plain commas, fields trimmed; no quoting
std::string_view trim(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
std::optional<double> to_number(std::string_view s);      // the whole token, finite
std::optional<long long> to_integer(std::string_view s);  // the whole token
// "all_reduce_perf", "/opt/nccl-tests/build/allreduce_perf_mpi", "allreduce", "reduce_scatter": the collective it names.
std::optional<Collective> collective_from_name(std::string_view name);
// The collective a file name mentions ("h100.all_reduce.log"), when it mentions exactly one.
std::optional<Collective> collective_in_file_name(const std::string& path);

[[noreturn]] void fail_line(const std::string& file, std::size_t line, const std::string& expected);

}  // namespace tt::calib
