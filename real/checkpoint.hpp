// Checkpoints that lose nothing. A job's checkpoint after iteration N lives in JOB_DIR/checkpoints/iter-<N, 12 digits>/
// as one state file and one manifest per rank. A rank writes its state file durably (temp file, fsync, rename, fsync
// of the directory), then its manifest the same way; the manifest names the state file's size and CRC-32C and
// carries a CRC of its own. A checkpoint counts only when every rank's manifest is in place; a restore verifies every
// checksum first and refuses a partial or corrupt checkpoint with a message saying which file and why, falling back
// to the previous one. Directories are created 0700. The state bytes are opaque here (see real/training.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tt::real {

class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::filesystem::path checkpoints_root(const std::filesystem::path& job_dir);
std::filesystem::path checkpoint_path(const std::filesystem::path& job_dir, std::int64_t iteration);
std::string state_file_name(int rank);     // "rank-00003.state"
std::string manifest_file_name(int rank);  // "rank-00003.manifest"

// Writes rank `rank`'s part of the checkpoint after `iteration` (>= 1) of a job with `world` ranks. Throws SysError.
void write_rank_checkpoint(const std::filesystem::path& job_dir, std::int64_t iteration, int rank, int world,
                           std::string_view state);

// True when every rank's manifest is in place (contents are not read): the checkpoint counts.
bool checkpoint_complete(const std::filesystem::path& job_dir, std::int64_t iteration, int world);

// Reads and checks every manifest (format, own CRC, iteration, rank, world) and every state file (size, CRC-32C).
// Returns an empty string when the checkpoint is whole, else the first problem found, naming the file.
std::string verify_checkpoint(const std::filesystem::path& job_dir, std::int64_t iteration, int world);

// One rank's state, checked against its manifest. Throws CheckpointError naming the file and the problem.
std::string read_rank_state(const std::filesystem::path& job_dir, std::int64_t iteration, int rank, int world);

// Iterations that have a checkpoint directory (complete or not), ascending.
std::vector<std::int64_t> list_checkpoints(const std::filesystem::path& job_dir);

struct RestorePoint {
  std::int64_t iteration = 0;        // 0: no usable checkpoint, start from the seed
  std::vector<std::string> refused;  // one message per newer checkpoint refused, newest first
};
// The newest checkpoint at or below `at_most` that verifies.
RestorePoint choose_restore(const std::filesystem::path& job_dir, int world, std::int64_t at_most);

// Removes checkpoint directories after `iteration`: leftovers of an attempt that was killed, or refused ones.
void remove_checkpoints_after(const std::filesystem::path& job_dir, std::int64_t iteration);
// Fault injection (a corrupted checkpoint drill): flips every bit of the byte in the middle of `file`, in place, as
// silent corruption on storage would; the file keeps its size. Throws SysError; CheckpointError for an empty file.
void flip_byte_in_middle(const std::filesystem::path& file);

// Keeps the `keep` newest complete checkpoints and removes older directories.
void prune_checkpoints(const std::filesystem::path& job_dir, int world, int keep);

}  // namespace tt::real
