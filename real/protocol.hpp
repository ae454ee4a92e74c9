// What a worker tells the driver, over a pipe (the worker's fd 3): fixed-size 32-byte messages, each written with one
// write(2), which POSIX makes atomic for pipes (<= PIPE_BUF), so the heartbeat thread and the training loop may both
// write. Any message counts as a heartbeat. Text (errors, logs) goes to the worker's stderr, a log file in the run
// directory.
#pragma once

#include <cstdint>

namespace tt::real {

enum class MsgKind : std::uint16_t {
  Hello = 1,       // rendezvous done, state loaded; `iteration` is the iteration it resumes after
  Heartbeat = 2,   // alive (sent every heartbeat interval by a thread of its own)
  Progress = 3,    // iteration `iteration` done; `seconds`: its real duration (sent by rank 0)
  Checkpoint = 4,  // this rank's part of the checkpoint after `iteration` is durable; `seconds`: real write time
  Done = 5,        // every iteration done and the final state written; `value`: CRC-32C of that state
  Error = 6,       // the worker is about to exit non-zero; the reason is in its log
  Phase = 7,       // one phase of iteration `iteration` on this rank; `value`: a PhaseId; `seconds`: its real duration
};

// The phases of one iteration a worker times (every rank, before any pacing sleep): what `traintwin calibrate
// --from-run` fits the CPU twin of this machine to (run directory: measurements.jsonl, real/measurement_log.hpp).
enum class PhaseId : std::uint32_t {
  Compute = 1,    // the compute step's gradients
  AllReduce = 2,  // the gradient all-reduce (waiting for the slowest rank included)
  Update = 3,     // the SGD update
};

inline constexpr std::uint32_t kMsgMagic = 0x31525454;  // "TTR1" little-endian

struct WireMsg {
  std::uint32_t magic = kMsgMagic;
  MsgKind kind = MsgKind::Heartbeat;
  std::uint16_t reserved = 0;
  std::int32_t rank = 0;
  std::uint32_t value = 0;
  std::int64_t iteration = 0;
  double seconds = 0;
};
static_assert(sizeof(WireMsg) == 32, "WireMsg is a fixed 32-byte wire format");

// The other way, driver -> worker, there is one message: "your device now runs at this share of its speed" (a
// straggler), a queued real-time signal whose value is the share in millionths. A worker installs its handler before
// it says Hello; the driver signals only workers that have.
int speed_signal();  // SIGRTMIN + 1
inline int speed_to_signal_value(double speed) { return static_cast<int>(speed * 1e6 + 0.5); }
inline double speed_from_signal_value(int value) { return value / 1e6; }

}  // namespace tt::real
