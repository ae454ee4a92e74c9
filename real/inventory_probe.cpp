#include "real/inventory_probe.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/timex.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tt::real {
namespace {

using preflight::Version;

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (in) std::getline(in, line);
  return line;
}

// Values above 2^63-1 (kernel.shmmax's default is 2^64 - 2^24 - 1) are kept as 2^63-1: unlimited in effect.
std::optional<std::int64_t> read_integer(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word.empty()) return std::nullopt;
  const bool negative = word[0] == '-';
  if (word.find_first_not_of("0123456789", negative ? 1 : 0) != std::string::npos) return std::nullopt;
  errno = 0;
  if (negative) return std::strtoll(word.c_str(), nullptr, 10);
  const unsigned long long v = std::strtoull(word.c_str(), nullptr, 10);
  return v > static_cast<unsigned long long>(INT64_MAX) || errno == ERANGE ? INT64_MAX : static_cast<std::int64_t>(v);
}

// dlopen by soname (the loader's search path, then the CUDA toolkit's library directory).
void* open_library(const std::vector<std::string>& names, std::string& loaded) {
  std::vector<std::string> dirs = {""};
  if (const char* home = std::getenv("CUDA_HOME")) dirs.push_back(std::string(home) + "/lib64/");
  dirs.push_back("/usr/local/cuda/lib64/");
  for (const auto& dir : dirs)
    for (const auto& n : names)
      if (void* h = dlopen((dir + n).c_str(), RTLD_NOW | RTLD_LOCAL)) {
        loaded = dir + n;
        return h;
      }
  return nullptr;
}

std::string library_path(void* symbol, const std::string& fallback) {
  Dl_info info{};
  if (symbol && dladdr(symbol, &info) && info.dli_fname) return info.dli_fname;
  return fallback;
}

// "12040" (CUDA's encoding: 1000 * major + 10 * minor) -> 12.4
Version cuda_version(int code) { return *Version::parse(std::to_string(code / 1000) + "." + std::to_string(code % 1000 / 10)); }

// NCCL's own banner in its library ("NCCL version 2.21.5+cuda12.4") names the CUDA it was built for.
std::optional<Version> nccl_built_for(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<Version> out;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    void* map = mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
      std::string_view bytes(static_cast<const char*>(map), static_cast<std::size_t>(st.st_size));
      const std::string_view marker = "+cuda";
      for (auto pos = bytes.find(marker); pos != std::string_view::npos && !out; pos = bytes.find(marker, pos + 1)) {
        auto begin = pos + marker.size(), end = begin;
        while (end < bytes.size() && (std::isdigit(static_cast<unsigned char>(bytes[end])) || bytes[end] == '.')) ++end;
        if (end > begin) out = Version::parse(bytes.substr(begin, end - begin));
      }
      munmap(map, static_cast<std::size_t>(st.st_size));
    }
  }
  close(fd);
  return out;
}

void probe_nccl(Probe& p) {
  std::string loaded;
  void* h = open_library({"libnccl.so.2", "libnccl.so"}, loaded);
  if (!h) {
    const char* why = dlerror();
    p.notes.push_back("nccl: absent (dlopen libnccl.so.2: " + std::string(why ? why : "not found") + ")");
    return;
  }
  using GetVersion = int (*)(int*);
  auto get = reinterpret_cast<GetVersion>(dlsym(h, "ncclGetVersion"));
  int code = 0;
  if (!get || get(&code) != 0) {
    p.notes.push_back("nccl: absent (" + loaded + " has no working ncclGetVersion)");
    return;
  }
  // NCCL_VERSION_CODE since 2.9: major * 10000 + minor * 100 + patch; before: major * 1000 + minor * 100 + patch.
  const int major = code >= 10000 ? code / 10000 : code / 1000;
  const int minor = code >= 10000 ? code / 100 % 100 : code / 100 % 10;
  const std::string path = library_path(reinterpret_cast<void*>(get), loaded);
  preflight::NcclInventory n{*Version::parse(std::to_string(major) + "." + std::to_string(minor) + "." +
                                              std::to_string(code % 100)),
                             nccl_built_for(path)};
  p.notes.push_back("nccl: " + n.version.text() + " (ncclGetVersion " + std::to_string(code) + ") from " + path +
                    (n.cuda ? ", built for CUDA " + n.cuda->text() : ", CUDA build unknown"));
  p.inventory.nccl = n;
}

void probe_cuda_runtime(Probe& p) {
  std::string loaded;
  void* h = open_library({"libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"}, loaded);
  using GetVersion = int (*)(int*);
  auto get = h ? reinterpret_cast<GetVersion>(dlsym(h, "cudaRuntimeGetVersion")) : nullptr;
  int code = 0;
  if (!get || get(&code) != 0 || code <= 0) {
    p.notes.push_back("cuda_runtime: absent (no libcudart answering cudaRuntimeGetVersion)");
    return;
  }
  p.inventory.cuda_runtime = cuda_version(code);
  p.notes.push_back("cuda_runtime: " + p.inventory.cuda_runtime->text() + " (cudaRuntimeGetVersion " +
                    std::to_string(code) + ") from " + library_path(reinterpret_cast<void*>(get), loaded));
}

// The driver's version from its kernel module; the CUDA it supports and the GPUs from libcuda.
void probe_driver_and_gpus(Probe& p) {
  const std::string line = read_first_line("/proc/driver/nvidia/version");
  auto pos = line.find("Kernel Module");
  if (pos != std::string::npos) {
    std::istringstream words(line.substr(pos + 13));
    std::string v;
    words >> v;
    p.inventory.driver = Version::parse(v);
  }
  p.notes.push_back(p.inventory.driver ? "driver: " + p.inventory.driver->text() + " from /proc/driver/nvidia/version"
                                       : "driver: absent (no /proc/driver/nvidia/version)");
  std::string loaded;
  void* h = open_library({"libcuda.so.1"}, loaded);
  if (!h) {
    p.notes.push_back("gpu: absent (dlopen libcuda.so.1 failed: no NVIDIA driver library)");
    return;
  }
  using IntFn = int (*)(int*);
  auto driver_version = reinterpret_cast<IntFn>(dlsym(h, "cuDriverGetVersion"));
  auto init = reinterpret_cast<int (*)(unsigned)>(dlsym(h, "cuInit"));
  auto count_fn = reinterpret_cast<IntFn>(dlsym(h, "cuDeviceGetCount"));
  auto name_fn = reinterpret_cast<int (*)(char*, int, int)>(dlsym(h, "cuDeviceGetName"));
  auto mem_fn = reinterpret_cast<int (*)(std::size_t*, int)>(dlsym(h, "cuDeviceTotalMem_v2"));
  auto attr_fn = reinterpret_cast<int (*)(int*, int, int)>(dlsym(h, "cuDeviceGetAttribute"));
  int code = 0;
  if (driver_version && driver_version(&code) == 0 && code > 0) p.inventory.driver_cuda = cuda_version(code);
  int count = 0;
  if (!init || init(0) != 0 || !count_fn || count_fn(&count) != 0 || count == 0) {
    p.notes.push_back("gpu: absent (cuInit or cuDeviceGetCount found no device)");
    return;
  }
  preflight::GpuInventory g;
  g.count = count;
  char name[256] = {0};
  if (name_fn && name_fn(name, sizeof name, 0) == 0) g.model = name;
  std::size_t bytes = 0;
  if (mem_fn && mem_fn(&bytes, 0) == 0) g.memory = Bytes(double(bytes));
  int major = 0, minor = 0;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR (75) and _MINOR (76)
  if (attr_fn && attr_fn(&major, 75, 0) == 0 && attr_fn(&minor, 76, 0) == 0)
    g.compute_capability = Version::parse(std::to_string(major) + "." + std::to_string(minor));
  if (g.model.empty()) g.model = "unknown";
  p.notes.push_back("gpu: " + std::to_string(count) + " x " + g.model + " (libcuda)");
  p.inventory.gpu = g;
}

void probe_os(Probe& p) {
  std::ifstream in("/etc/os-release");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("PRETTY_NAME=", 0) == 0) {
      std::string v = line.substr(12);
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
      p.inventory.os_release = v;
    }
  if (p.inventory.os_release.empty()) p.inventory.os_release = "unknown";
  struct utsname u {};
  p.inventory.kernel = uname(&u) == 0 ? u.release : "unknown";
}

// The kernel parameters training depends on: shared memory, file handles, socket buffers and backlogs, mappings.
void probe_kernel_params(Probe& p) {
  for (const char* name : {"kernel.shmmax", "kernel.shmall", "kernel.shmmni", "fs.file-max", "net.core.rmem_max",
                           "net.core.wmem_max", "net.core.somaxconn", "net.core.netdev_max_backlog",
                           "net.ipv4.tcp_max_syn_backlog", "vm.max_map_count"}) {
    std::string path = "/proc/sys/" + std::string(name);
    std::replace(path.begin() + 10, path.end(), '.', '/');
    if (auto v = read_integer(path)) p.inventory.kernel_params[name] = *v;
    else p.notes.push_back(std::string("kernel_params: ") + name + " absent (" + path + " unreadable)");
  }
}

preflight::Limit rlimit(int resource) {
  struct rlimit r {};
  if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return {true, 0};
  return {false, static_cast<std::int64_t>(r.rlim_cur)};
}

void probe_clock(Probe& p) {
  struct timex tx {};
  const int state = adjtimex(&tx);
  p.inventory.clock.synced = state != -1 && state != TIME_ERROR;
  if (state != -1) p.inventory.clock.max_error = Seconds(double(tx.maxerror) * 1e-6);
  p.notes.push_back(std::string("clock: adjtimex state ") + std::to_string(state) +
                    (p.inventory.clock.synced ? " (synchronised)" : " (TIME_ERROR: not synchronised)"));
}

void probe_network(Probe& p) {
  struct ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return;
  const char* wanted = std::getenv("NCCL_SOCKET_IFNAME");
  std::vector<preflight::NetworkInventory> found;
  for (auto* a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || (a->ifa_flags & IFF_LOOPBACK) || !(a->ifa_flags & IFF_UP))
      continue;
    if (wanted && *wanted && std::string(a->ifa_name).rfind(wanted, 0) != 0) continue;
    char addr[INET_ADDRSTRLEN] = {0};
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, addr, sizeof addr);
    int prefix = 0;
    if (a->ifa_netmask)
      prefix = __builtin_popcount(reinterpret_cast<sockaddr_in*>(a->ifa_netmask)->sin_addr.s_addr);
    preflight::NetworkInventory n;
    n.interface = a->ifa_name;
    n.address = addr;
    n.prefix = prefix;
    auto mbps = read_integer("/sys/class/net/" + n.interface + "/speed");
    if (mbps && *mbps > 0) n.speed = BytesPerSecond(double(*mbps) * 1e6 / 8);
    found.push_back(n);
  }
  freeifaddrs(list);
  if (found.empty()) {
    p.notes.push_back("network: absent (no IPv4 interface up besides loopback)");
    return;
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.interface < b.interface; });
  auto n = found.front();
  // NCCL's bootstrap and socket transport bind ephemeral ports: the kernel's local port range.
  std::istringstream range(read_first_line("/proc/sys/net/ipv4/ip_local_port_range"));
  if (!(range >> n.port_low >> n.port_high)) n.port_low = 1, n.port_high = 65535;
  p.notes.push_back("network: " + n.interface + (n.speed ? "" : " (link speed not reported by the kernel)"));
  p.inventory.network = n;
}

}  // namespace

Probe probe_inventory() {
  Probe p;
  char host[256] = {0};
  p.inventory.host = gethostname(host, sizeof host - 1) == 0 && *host ? host : "localhost";
  probe_driver_and_gpus(p);
  probe_cuda_runtime(p);
  probe_nccl(p);
  // The real driver's workers run this project's own attention kernels and training loop, not a Python stack.
  p.inventory.attention = preflight::Library{"traintwin-kernels", *Version::parse(TRAINTWIN_VERSION)};
  p.inventory.framework = preflight::Library{"traintwin", *Version::parse(TRAINTWIN_VERSION)};
  probe_os(p);
  probe_kernel_params(p);
  p.inventory.nofile = rlimit(RLIMIT_NOFILE);
  auto memlock = rlimit(RLIMIT_MEMLOCK);
  p.inventory.memlock = memlock;
  struct statvfs fs {};
  if (statvfs("/dev/shm", &fs) == 0) p.inventory.dev_shm = Bytes(double(fs.f_blocks) * double(fs.f_frsize));
  else p.notes.push_back("dev_shm: /dev/shm absent (0 bytes)");
  probe_clock(p);
  probe_network(p);
  return p;
}

}  // namespace tt::real
