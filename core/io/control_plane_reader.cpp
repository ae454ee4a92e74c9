#include "core/io/control_plane_reader.hpp"

#include <algorithm>

#include "core/io/reader_support.hpp"

namespace tt {

namespace reader {

ControlPlaneOutage read_control_plane_crash(const nlohmann::json& entry, const std::string& file,
                                            const std::string& pointer, std::size_t index) {
  // A target key is refused like any key a control-plane crash does not take: the control plane is one, not a node.
  auto o = open(entry, file, pointer, {"kind", "at", "repair"});
  o.str("kind");
  ControlPlaneOutage out;
  out.at = o.seconds("at");
  if (!present(o, "repair"))
    o.fail("repair", "\"repair\": how long the control plane is down (a control_plane_crash needs one)");
  out.down = positive_seconds(o, "repair");
  out.entry = index;
  o.finish();
  return out;
}

}  // namespace reader

std::vector<ControlPlaneOutage> read_control_plane_outages(const nlohmann::json& doc, const std::string& file) {
  std::vector<ControlPlaneOutage> out;
  if (!doc.is_object() || !doc.contains("faults") || !doc["faults"].is_array()) return out;
  const auto& faults = doc["faults"];
  for (std::size_t i = 0; i < faults.size(); ++i) {
    const auto& f = faults[i];
    if (f.is_object() && f.contains("kind") && f["kind"] == kControlPlaneCrash)
      out.push_back(reader::read_control_plane_crash(f, file, "/faults/" + std::to_string(i), i));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ControlPlaneOutage& a, const ControlPlaneOutage& b) { return a.at < b.at; });
  return out;
}

}  // namespace tt
