#include <filesystem>
#include <functional>
#include <map>

#include "core/io/inventory_reader.hpp"
#include "core/io/reader_support.hpp"
#include "core/io/section_readers.hpp"

namespace tt::reader {

preflight::TwinPreflight read_preflight(JsonObject& root, const Topology& topology) {
  preflight::TwinPreflight p;
  if (!present(root, "preflight")) return p;
  auto o = open_child(root, "preflight", {"matrix", "releases", "gate", "attention_fallback_speed", "nodes", "transport",
                                        "socket_streams", "socket_window_share", "socket_rtt"});
  namespace fs = std::filesystem;
  const std::string rel = o.str("matrix");
  const fs::path path = fs::path(root.file()).parent_path() / rel;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    o.fail("matrix", "a matrix file path relative to the scenario file's directory; " + path.string() +
                         " does not exist or is not a file");
  p.matrix = read_matrix_file(path.string());
  p.node_release.assign(topology.nodes().size(), p.matrix->current);
  std::map<std::string, int> index;
  std::vector<std::string> node_names, release_names;
  for (std::size_t n = 0; n < topology.nodes().size(); ++n) {
    index[topology.nodes()[n].name] = static_cast<int>(n);
    node_names.push_back(topology.nodes()[n].name);
  }
  for (const auto& r : p.matrix->releases) release_names.push_back(r.name);
  // Each key of o[key] names a topology node; `read` takes the node's index, the object and the key.
  auto by_node = [&](const std::string& key, const std::function<void(int, JsonObject&, const std::string&)>& read) {
    if (!present(o, key)) return;
    const auto& v = o.raw(key);
    JsonObject obj(v, o.file(), o.child_pointer(key));
    for (auto it = v.begin(); it != v.end(); ++it) {
      auto node = index.find(it.key());
      if (node == index.end())
        obj.fail(it.key(), "the name of a node of the topology (" + list_names(node_names) + "); " +
                               in_quotes(it.key()) + " is not one" + suggestion(it.key(), node_names));
      read(node->second, obj, it.key());
    }
    obj.finish();
  };
  by_node("releases", [&](int node, JsonObject& rels, const std::string& name) {
    const std::string release = rels.str(name);
    if (!p.matrix->find(release))
      rels.fail(name, "the name of a release of " + rel + " (" + list_names(release_names) + "), found " +
                          in_quotes(release) + suggestion(release, release_names));
    p.node_release[static_cast<std::size_t>(node)] = release;
  });
  by_node("nodes", [&](int node, JsonObject& nodes, const std::string& name) {
    auto settings = open_child(nodes, name, node_setting_keys());
    p.node_settings[node] = read_node_settings(settings);
  });
  if (present(o, "transport"))
    p.transport = choice(o, "transport", {"rdma", "socket"}, "the inter-node transport") == 0
                      ? preflight::NetTransport::Rdma
                      : preflight::NetTransport::Socket;
  if (auto s = opt_int_in(o, "socket_streams", 1, 1024)) p.socket_streams = *s;
  if (auto s = opt_positive(o, "socket_window_share", 1.0)) p.socket_window_share = *s;
  if (present(o, "socket_rtt")) p.socket_rtt = positive_seconds(o, "socket_rtt");
  p.gate = o.opt_boolean("gate").value_or(true);
  p.attention_fallback_speed = opt_positive(o, "attention_fallback_speed", 1.0).value_or(p.attention_fallback_speed);
  o.finish();
  return p;
}

}  // namespace tt::reader
