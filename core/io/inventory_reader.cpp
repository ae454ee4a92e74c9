#include "core/io/inventory_reader.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/io/json_reader.hpp"
#include "core/io/reader_support.hpp"

namespace tt {
namespace {

using Json = nlohmann::json;
using preflight::Library;
using preflight::Limit;
using preflight::Version;
using reader::in_quotes;
using reader::open;
using reader::open_child;
using reader::str_of;

// A required key whose value may be null (the component is absent).
bool is_null(JsonObject& o, const std::string& key) { return o.raw(key).is_null(); }

Version version(JsonObject& o, const std::string& key) {
  const Json& v = o.raw(key);
  if (!v.is_string()) o.fail(key, "a version string such as \"2.21.5\", found " + std::string(v.type_name()));
  auto parsed = Version::parse(v.get<std::string>());
  if (!parsed) o.fail(key, "a version of dot-separated numbers such as \"2.21.5\", found " + in_quotes(str_of(v)));
  return *parsed;
}

std::optional<Version> nullable_version(JsonObject& o, const std::string& key) {
  if (is_null(o, key)) return std::nullopt;
  return version(o, key);
}

Library library(JsonObject& parent, const std::string& key) {
  auto o = open_child(parent, key, {"name", "version"});
  Library l{o.str("name"), version(o, "version")};
  o.finish();
  return l;
}

std::optional<Library> nullable_library(JsonObject& o, const std::string& key) {
  if (is_null(o, key)) return std::nullopt;
  return library(o, key);
}

// An integer, or "unlimited"; `bytes` reads sizes with units ("8MiB").
Limit limit(JsonObject& o, const std::string& key, bool bytes) {
  const Json& v = o.raw(key);
  const std::string expected = bytes ? "a size such as \"64KiB\" or \"unlimited\"" : "an integer or \"unlimited\"";
  if (v.is_string() && v.get<std::string>() == "unlimited") return Limit{true, 0};
  if (bytes) {
    if (!v.is_string()) o.fail(key, expected + ", found " + str_of(v));
    return Limit{false, static_cast<std::int64_t>(o.bytes(key).value)};
  }
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0) o.fail(key, expected + ", found " + str_of(v));
  return Limit{false, v.get<std::int64_t>()};
}

std::map<std::string, std::int64_t> kernel_params(JsonObject& parent, const std::string& key) {
  const Json& v = parent.raw(key);
  JsonObject o(v, parent.file(), parent.child_pointer(key));
  std::map<std::string, std::int64_t> out;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string& name = it.key();
    const bool dotted = !name.empty() && name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_.-") ==
                                             std::string::npos && name.find('.') != std::string::npos;
    if (!dotted) o.fail(name, "a sysctl name such as \"net.core.rmem_max\", found " + in_quotes(name));
    if (!it->is_number_integer()) o.fail(name, "an integer, found " + str_of(*it));
    out[name] = it->get<std::int64_t>();
    o.raw(name);
  }
  o.finish();
  return out;
}

std::optional<preflight::GpuInventory> gpu(JsonObject& root) {
  if (is_null(root, "gpu")) return std::nullopt;
  auto o = open_child(root, "gpu", {"model", "count", "memory", "compute_capability"});
  preflight::GpuInventory g;
  g.model = o.str("model");
  g.count = reader::int_in(o, "count", 1, 1024);
  g.memory = o.bytes("memory");
  if (g.memory.value <= 0) o.fail("memory", "a memory size greater than zero");
  g.compute_capability = nullable_version(o, "compute_capability");
  o.finish();
  return g;
}

// "10.0.0.1/24": an IPv4 or IPv6 address and a prefix length.
void address(JsonObject& o, preflight::NetworkInventory& n) {
  std::string s = o.str("address");
  auto slash = s.find('/');
  const bool v6 = s.find(':') != std::string::npos;
  int prefix = -1;
  if (slash != std::string::npos && slash > 0 && slash + 1 < s.size() && slash + 4 >= s.size()) {
    const std::string p = s.substr(slash + 1);
    if (p.find_first_not_of("0123456789") == std::string::npos) prefix = std::stoi(p);
  }
  if (prefix < 0 || prefix > (v6 ? 128 : 32))
    o.fail("address", "an address with its prefix length such as \"10.0.0.1/24\", found " + in_quotes(s));
  n.address = s.substr(0, slash);
  n.prefix = prefix;
}

std::optional<preflight::NetworkInventory> network(JsonObject& root) {
  if (is_null(root, "network")) return std::nullopt;
  auto o = open_child(root, "network", {"interface", "address", "speed", "port_range"});
  preflight::NetworkInventory n;
  n.interface = o.str("interface");
  address(o, n);
  if (!is_null(o, "speed")) n.speed = o.bandwidth("speed");
  const Json& ports = o.raw("port_range");
  const bool ok = ports.is_array() && ports.size() == 2 && ports[0].is_number_integer() &&
                  ports[1].is_number_integer() && ports[0].get<long long>() >= 1 &&
                  ports[0].get<long long>() <= ports[1].get<long long>() && ports[1].get<long long>() <= 65535;
  if (!ok) o.fail("port_range", "[low, high] with 1 <= low <= high <= 65535, found " + str_of(ports));
  n.port_low = ports[0].get<int>();
  n.port_high = ports[1].get<int>();
  o.finish();
  return n;
}

void check_format(JsonObject& root, const std::string& expected) {
  std::string f = root.str("format");
  if (f != expected) root.fail("format", in_quotes(expected) + ", found " + in_quotes(f));
}

}  // namespace

preflight::Inventory read_inventory(const Json& doc, const std::string& file) {
  auto root = open(doc, file, "",
                   {"format", "host", "gpu", "driver", "cuda_runtime", "nccl", "attention", "framework", "os",
                    "kernel_params", "ulimits", "dev_shm", "clock", "network"});
  check_format(root, preflight::kInventoryFormat);
  preflight::Inventory inv;
  inv.source_file = file;
  inv.host = root.str("host");
  inv.gpu = gpu(root);
  if (!is_null(root, "driver")) {
    auto d = open_child(root, "driver", {"version", "cuda"});
    inv.driver = version(d, "version");
    inv.driver_cuda = nullable_version(d, "cuda");
    d.finish();
  }
  inv.cuda_runtime = nullable_version(root, "cuda_runtime");
  if (!is_null(root, "nccl")) {
    auto n = open_child(root, "nccl", {"version", "cuda"});
    inv.nccl = preflight::NcclInventory{version(n, "version"), nullable_version(n, "cuda")};
    n.finish();
  }
  inv.attention = nullable_library(root, "attention");
  inv.framework = nullable_library(root, "framework");
  auto os = open_child(root, "os", {"release", "kernel"});
  inv.os_release = os.str("release");
  inv.kernel = os.str("kernel");
  os.finish();
  inv.kernel_params = kernel_params(root, "kernel_params");
  auto ul = open_child(root, "ulimits", {"nofile", "memlock"});
  inv.nofile = limit(ul, "nofile", false);
  inv.memlock = limit(ul, "memlock", true);
  ul.finish();
  inv.dev_shm = root.bytes("dev_shm");
  auto clock = open_child(root, "clock", {"synced", "max_error"});
  inv.clock.synced = clock.boolean("synced");
  if (!is_null(clock, "max_error")) inv.clock.max_error = clock.seconds("max_error");
  clock.finish();
  inv.network = network(root);
  root.finish();
  return inv;
}

preflight::Inventory read_inventory_file(const std::string& path) { return read_inventory(load_json_file(path), path); }

std::vector<preflight::Inventory> read_fleet(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      files.push_back(p);
      continue;
    }
    std::vector<std::string> in_dir;
    for (const auto& e : fs::directory_iterator(p, ec))
      if (e.is_regular_file() && e.path().extension() == ".json") in_dir.push_back(e.path().string());
    if (in_dir.empty()) throw InputError(p, "", "a directory holding inventory files (*.json); it has none");
    std::sort(in_dir.begin(), in_dir.end());
    files.insert(files.end(), in_dir.begin(), in_dir.end());
  }
  if (files.empty()) throw InputError("command line", "FLEET", "at least one inventory file or directory");
  std::vector<preflight::Inventory> fleet;
  std::map<std::string, std::string> seen;
  for (const auto& f : files) {
    auto inv = read_inventory_file(f);
    if (auto it = seen.find(inv.host); it != seen.end())
      throw InputError(f, "/host", "a host not inventoried twice; " + in_quotes(inv.host) + " is also in " + it->second);
    seen.emplace(inv.host, f);
    fleet.push_back(std::move(inv));
  }
  return fleet;
}

preflight::Matrix read_matrix(const Json& doc, const std::string& file) {
  auto root = open(doc, file, "", {"format", "releases", "current", "node"});
  check_format(root, "traintwin-matrix/1");
  preflight::Matrix m;
  m.source_file = file;
  std::map<std::string, std::string> seen;
  for (const auto& [v, ptr] : root.array("releases")) {
    auto o = open(*v, file, ptr, {"name", "driver", "cuda_runtime", "nccl", "attention", "framework"});
    preflight::Release r;
    r.name = o.str("name");
    if (auto it = seen.find(r.name); it != seen.end())
      o.fail("name", "a release name not used by an earlier release; " + in_quotes(r.name) + " is already " +
                         it->second);
    seen.emplace(r.name, ptr);
    r.driver = version(o, "driver");
    r.cuda_runtime = version(o, "cuda_runtime");
    r.nccl = version(o, "nccl");
    if (reader::present(o, "attention")) r.attention = library(o, "attention");
    if (reader::present(o, "framework")) r.framework = library(o, "framework");
    o.finish();
    m.releases.push_back(std::move(r));
  }
  m.current = root.str("current");
  if (!m.find(m.current)) {
    std::vector<std::string> names;
    for (const auto& r : m.releases) names.push_back(r.name);
    root.fail("current", "the name of one of the releases (" + reader::list_names(names) + "), found " +
                             in_quotes(m.current) + reader::suggestion(m.current, names));
  }
  if (reader::present(root, "node")) {
    auto o = open_child(root, "node", node_setting_keys());
    const preflight::NodeOverrides n = read_node_settings(o);
    m.node.dev_shm = n.dev_shm;
    m.node.nofile = n.nofile;
    m.node.memlock = n.memlock;
    m.node.kernel_params = n.kernel_params;
    m.node.clock_synced = n.clock_synced.value_or(true);
    m.node.clock_max_error = n.clock_max_error;
  }
  root.finish();
  return m;
}

const std::vector<std::string>& node_setting_keys() {
  static const std::vector<std::string> keys{"dev_shm",       "nofile",       "memlock",
                                             "kernel_params", "clock_synced", "clock_max_error"};
  return keys;
}

preflight::NodeOverrides read_node_settings(JsonObject& o) {
  preflight::NodeOverrides n;
  if (reader::present(o, "dev_shm")) n.dev_shm = o.bytes("dev_shm");
  if (reader::present(o, "nofile")) n.nofile = limit(o, "nofile", false);
  if (reader::present(o, "memlock")) n.memlock = limit(o, "memlock", true);
  if (reader::present(o, "kernel_params")) n.kernel_params = kernel_params(o, "kernel_params");
  n.clock_synced = o.opt_boolean("clock_synced");
  n.clock_max_error = reader::opt_positive_seconds(o, "clock_max_error");
  o.finish();
  return n;
}

preflight::Matrix read_matrix_file(const std::string& path) { return read_matrix(load_json_file(path), path); }

}  // namespace tt
