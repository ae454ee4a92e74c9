// The "cost" section (docs/cost.md). Every key, its unit and default:
//   currency        string, default "USD" (a label only)
//   gpu_hour        non-empty array, one entry per site of the topology, required:
//     site          a site name (Topology::sites()); may be omitted when the topology has one site
//     kind          "on_demand" | "reserved" | "spot", required
//     price         number >= 0, per GPU-hour of capacity not in a pool, required
//   storage         object, optional: gb_month (number >= 0, per GB-month kept, default 0) and
//     retention     object, optional: keep_last (integer >= 1), expire_after (duration > 0)
//   traffic         object, optional: inter_site_gb, storage_gb (numbers >= 0 per GB moved or written, default 0)
#include <algorithm>
#include <limits>
#include <set>

#include "core/io/reader_support.hpp"
#include "core/model/pools.hpp"
#include "core/io/section_readers.hpp"

namespace tt::reader {
namespace {

constexpr double kMaxPrice = 1e9;

double price(JsonObject& o, const std::string& key) {
  const auto& v = o.raw(key);
  if (!v.is_number() || !(v.get<double>() >= 0) || v.get<double>() > kMaxPrice)
    o.fail(key, "a price: a number >= 0 (in the section's currency), found " + v.dump());
  return v.get<double>();
}

double opt_price(JsonObject& o, const std::string& key) { return present(o, key) ? price(o, key) : 0.0; }

}  // namespace

cost::Prices read_cost(JsonObject& root, const Topology& topology) {
  cost::Prices p;
  if (!present(root, "cost")) return p;
  p.enabled = true;
  auto o = open_child(root, "cost", {"currency", "gpu_hour", "storage", "traffic"});
  p.currency = o.opt_str("currency").value_or("USD");
  std::vector<std::string> sites;
  for (const auto& s : topology.sites()) sites.push_back(s.name);
  const bool one_site = sites.empty();
  if (one_site) sites.push_back(topology.name());
  std::set<std::string> priced;
  for (const auto& [v, ptr] : o.array("gpu_hour")) {
    auto e = open(*v, o.file(), ptr, {"site", "kind", "price"});
    cost::GpuPrice g;
    if (one_site && !e.has("site")) {
      e.opt_str("site");
      g.site = sites.front();
    } else {
      g.site = e.str("site");
      if (std::find(sites.begin(), sites.end(), g.site) == sites.end())
        e.fail("site", "one of the topology's sites (" + list_names(sites) + "); " + in_quotes(g.site) +
                           " is not one" + suggestion(g.site, sites));
    }
    if (!priced.insert(g.site).second)
      e.fail("site", "one price per site; site " + in_quotes(g.site) + " already has one");
    g.kind = static_cast<PriceKind>(choice(e, "kind", price_kind_names(), "a price kind"));
    g.per_gpu_hour = price(e, "price");
    e.finish();
    p.gpu.push_back(std::move(g));
  }
  for (const auto& s : sites)
    if (!priced.count(s)) o.fail("gpu_hour", "a price for every site; site " + in_quotes(s) + " has none");
  if (present(o, "storage")) {
    auto st = open_child(o, "storage", {"gb_month", "retention"});
    p.storage_per_gb_month = opt_price(st, "gb_month");
    if (present(st, "retention")) {
      auto r = open_child(st, "retention", {"keep_last", "expire_after"});
      p.retention.keep_last = opt_int_in(r, "keep_last", 1).value_or(0);
      p.retention.expire_after = opt_positive_seconds(r, "expire_after");
      r.finish();
    }
    st.finish();
  }
  if (present(o, "traffic")) {
    auto t = open_child(o, "traffic", {"inter_site_gb", "storage_gb"});
    p.inter_site_per_gb = opt_price(t, "inter_site_gb");
    p.storage_per_gb = opt_price(t, "storage_gb");
    t.finish();
  }
  o.finish();
  return p;
}

}  // namespace tt::reader
