// Inventory: what one node runs, as `traintwin inventory` collects it and docs/preflight.md documents it. Anything the
// collector could not find is absent (nullopt), never guessed. Plain values; core/io/inventory_reader.hpp reads them
// and to_json writes them back in the same format.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/model/units.hpp"
#include "core/preflight/version.hpp"

namespace tt::preflight {

inline constexpr const char* kInventoryFormat = "traintwin-inventory/1";

struct GpuInventory {
  std::string model;                          // "H100-SXM5-80GB"
  int count = 0;
  Bytes memory;                               // per GPU
  std::optional<Version> compute_capability;  // "9.0"
};

struct Library {  // attention library or training framework
  std::string name;  // "flash-attn", "torch"
  Version version;
};

struct NcclInventory {
  Version version;
  std::optional<Version> cuda;  // the CUDA NCCL was built for ("2.21.5+cuda12.4")
};

// A limit the kernel reports as a number or as unlimited (RLIM_INFINITY).
struct Limit {
  bool unlimited = false;
  std::int64_t value = 0;
  auto operator<=>(const Limit& o) const {
    if (unlimited || o.unlimited) return unlimited <=> o.unlimited;
    return value <=> o.value;
  }
  bool operator==(const Limit& o) const = default;
};

struct ClockState {
  bool synced = false;                 // the kernel's NTP state (adjtimex: not TIME_ERROR)
  std::optional<Seconds> max_error;    // the kernel's maximum error estimate
};

struct NetworkInventory {
  std::string interface;               // "eth0"
  std::string address;                 // "10.0.0.1"
  int prefix = 0;                      // subnet prefix length
  std::optional<BytesPerSecond> speed; // link speed; absent where the kernel does not report one
  int port_low = 0;                    // the port range the communication library may use
  int port_high = 0;
};

struct Inventory {
  std::string host;
  std::string source_file;                    // where it was read from (empty when collected)
  std::optional<GpuInventory> gpu;            // absent: no GPU
  std::optional<Version> driver;              // NVIDIA driver
  std::optional<Version> driver_cuda;         // the newest CUDA the driver supports
  std::optional<Version> cuda_runtime;
  std::optional<NcclInventory> nccl;
  std::optional<Library> attention;
  std::optional<Library> framework;
  std::string os_release;
  std::string kernel;
  std::map<std::string, std::int64_t> kernel_params;  // by sysctl name: "net.core.rmem_max"
  Limit nofile;                                        // RLIMIT_NOFILE (soft)
  Limit memlock;                                       // RLIMIT_MEMLOCK (soft), bytes
  Bytes dev_shm;                                       // size of /dev/shm
  ClockState clock;
  std::optional<NetworkInventory> network;             // absent: no interface besides loopback
};

nlohmann::json to_json(const Inventory& inv);

}  // namespace tt::preflight
