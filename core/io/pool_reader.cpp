#include <algorithm>
#include <map>

#include "core/io/reader_support.hpp"
#include "core/io/section_readers.hpp"
#include "core/model/gpu.hpp"

namespace tt::reader {
namespace {

// "template": {"gpu": "H100", "gpus_per_node": 8}: what a provisioned node carries. The slots are topology nodes, so
// it must be the topology's node; it is written so that a pool file says what it rents.
void read_template(JsonObject& o, const Topology& topology) {
  auto t = open_child(o, "template", {"gpu", "gpus_per_node"});
  const std::string gpu = t.str("gpu");
  const GpuSpec* spec = find_gpu(gpu);
  if (!spec) t.fail("gpu", "a GPU model of the catalogue (as in topologies), found " + in_quotes(gpu));
  if (spec->name != topology.gpu().name)
    t.fail("gpu", "the topology's GPU model " + in_quotes(topology.gpu().name) +
                      " (pool slots are topology nodes), found " + in_quotes(gpu));
  const int per_node = int_in(t, "gpus_per_node", 1);
  if (per_node != topology.gpus_per_node())
    t.fail("gpus_per_node", "the topology's " + std::to_string(topology.gpus_per_node()) +
                                " GPUs per node (pool slots are topology nodes), found " + std::to_string(per_node));
  t.finish();
}

}  // namespace

std::vector<PoolSpec> read_pools(JsonObject& root, const Topology& topology) {
  std::vector<PoolSpec> pools;
  if (!present(root, "pools")) return pools;
  std::vector<std::string> node_names;
  for (const auto& n : topology.nodes()) node_names.push_back(n.name);
  std::map<int, std::string> owner;  // node -> pointer of the pool entry that claimed it
  std::vector<std::string> pool_names;
  const std::vector<std::string> kinds = {"fixed", "elastic", "spot"};
  for (const auto& [v, ptr] : root.array("pools")) {
    auto o = open(*v, root.file(), ptr,
                  {"name", "kind", "nodes", "min", "max", "template", "provision_delay", "idle_timeout", "reclaim",
                   "price_per_gpu_hour", "price_kind"});
    PoolSpec p;
    p.name = o.str("name");
    if (p.name.empty()) o.fail("name", "a non-empty pool name");
    if (std::find(pool_names.begin(), pool_names.end(), p.name) != pool_names.end())
      o.fail("name", "a pool name not used by an earlier pool; " + in_quotes(p.name) + " is");
    pool_names.push_back(p.name);
    p.kind = static_cast<PoolKind>(choice(o, "kind", kinds, "a pool kind"));
    const auto nodes = o.array("nodes");
    for (const auto& [nv, nptr] : nodes) {
      if (!nv->is_string())
        throw InputError(root.file(), nptr, "a node name of the topology, found " + nv->dump());
      const std::string name = nv->get<std::string>();
      const int n = topology.find_node(name);
      if (n < 0)
        throw InputError(root.file(), nptr,
                         "a node name of the topology (" + list_names(node_names) + "); " + in_quotes(name) +
                             " is not one" + suggestion(name, node_names));
      if (auto it = owner.find(n); it != owner.end())
        throw InputError(root.file(), nptr, "a node in one pool only; " + in_quotes(name) + " is already in " + it->second);
      owner.emplace(n, ptr);
      p.nodes.push_back(n);
    }
    const int slots = static_cast<int>(p.nodes.size());
    if (p.kind == PoolKind::Fixed) {
      for (const char* k : {"min", "max", "provision_delay", "idle_timeout", "reclaim"})
        if (present(o, k))
          o.fail(k, std::string("no \"") + k + "\" in a fixed pool (its nodes are always in service)");
      p.min = p.max = slots;
    } else {
      p.max = int_in(o, "max", 1, slots);
      p.min = opt_int_in(o, "min", 0, slots).value_or(0);
      if (p.min > p.max)
        o.fail("min", "at most max (" + std::to_string(p.max) + ") nodes, found " + std::to_string(p.min));
      p.provision_delay = read_distribution(o, "provision_delay", "provisioning delay");
      p.idle_timeout = positive_seconds(o, "idle_timeout");
      if (p.kind == PoolKind::Spot) {
        auto r = open_child(o, "reclaim", {"mean_time", "notice", "checkpoint_on_notice"});
        p.reclaim_mean = positive_seconds(r, "mean_time");
        p.reclaim_notice = positive_seconds(r, "notice");
        p.checkpoint_on_notice = r.opt_boolean("checkpoint_on_notice").value_or(false);
        r.finish();
      } else if (present(o, "reclaim")) {
        o.fail("reclaim", "no \"reclaim\" in an elastic pool (only spot pools are reclaimed)");
      }
    }
    if (present(o, "template")) {
      read_template(o, topology);
    } else if (p.kind != PoolKind::Fixed) {
      o.fail("template", "a node template {\"gpu\", \"gpus_per_node\"} for an " + std::string(to_string(p.kind)) +
                             " pool");
    }
    p.price_per_gpu_hour = o.number("price_per_gpu_hour", 0.0, 1e6);
    p.price_kind = static_cast<PriceKind>(choice(o, "price_kind", price_kind_names(), "a price kind"));
    o.finish();
    pools.push_back(std::move(p));
  }
  std::vector<std::string> missing;
  for (int n = 0; n < static_cast<int>(topology.nodes().size()); ++n)
    if (!owner.count(n)) missing.push_back(node_names[n]);
  if (!missing.empty())
    root.fail("pools", "every node of the topology in one pool; " + list_names(missing) + " in none");
  return pools;
}

}  // namespace tt::reader
