#include "core/preflight/inventory.hpp"

#include <cmath>

namespace tt::preflight {
namespace {

using Json = nlohmann::json;

Json version_or_null(const std::optional<Version>& v) { return v ? Json(v->text()) : Json(nullptr); }
Json library_or_null(const std::optional<Library>& l) {
  return l ? Json{{"name", l->name}, {"version", l->version.text()}} : Json(nullptr);
}
Json limit_json(const Limit& l) { return l.unlimited ? Json("unlimited") : Json(l.value); }

// Exact and readable back: the largest binary unit that divides the size.
std::string exact_bytes(double bytes) {
  const auto b = static_cast<std::int64_t>(bytes);
  for (auto [unit, size] : {std::pair{"TiB", 1LL << 40}, {"GiB", 1LL << 30}, {"MiB", 1LL << 20}, {"KiB", 1LL << 10}})
    if (b > 0 && b % size == 0) return std::to_string(b / size) + unit;
  return std::to_string(b) + "B";
}

}  // namespace

Json to_json(const Inventory& inv) {
  Json j = Json::object();
  j["format"] = kInventoryFormat;
  j["host"] = inv.host;
  j["gpu"] = inv.gpu ? Json{{"model", inv.gpu->model},
                            {"count", inv.gpu->count},
                            {"memory", exact_bytes(inv.gpu->memory.value)},
                            {"compute_capability", version_or_null(inv.gpu->compute_capability)}}
                     : Json(nullptr);
  j["driver"] = inv.driver ? Json{{"version", inv.driver->text()}, {"cuda", version_or_null(inv.driver_cuda)}}
                           : Json(nullptr);
  j["cuda_runtime"] = version_or_null(inv.cuda_runtime);
  j["nccl"] = inv.nccl ? Json{{"version", inv.nccl->version.text()}, {"cuda", version_or_null(inv.nccl->cuda)}}
                       : Json(nullptr);
  j["attention"] = library_or_null(inv.attention);
  j["framework"] = library_or_null(inv.framework);
  j["os"] = {{"release", inv.os_release}, {"kernel", inv.kernel}};
  j["kernel_params"] = Json(inv.kernel_params);
  j["ulimits"] = {{"nofile", limit_json(inv.nofile)},
                  {"memlock", inv.memlock.unlimited ? Json("unlimited")
                                                        : Json(exact_bytes(double(inv.memlock.value)))}};
  j["dev_shm"] = exact_bytes(inv.dev_shm.value);
  j["clock"] = {{"synced", inv.clock.synced},
                {"max_error", inv.clock.max_error ? Json(std::to_string(std::llround(inv.clock.max_error->value * 1e6)) + "us") : Json(nullptr)}};
  if (inv.network) {
    const auto& n = *inv.network;
    j["network"] = {{"interface", n.interface},
                    {"address", n.address + "/" + std::to_string(n.prefix)},
                    {"speed", n.speed ? Json(std::to_string(std::llround(n.speed->value * 8 / 1e6)) + "Mbps") : Json(nullptr)},
                    {"port_range", {n.port_low, n.port_high}}};
  } else {
    j["network"] = nullptr;
  }
  return j;
}

}  // namespace tt::preflight
