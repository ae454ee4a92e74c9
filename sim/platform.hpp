// Platform: the one file that turns a tt::Topology into SimGrid resources (the 3.32 zone API is deprecated in 4.x,
// so an upgrade touches platform.cpp only). Requires a live s4u::Engine on which pin_network_model() was applied and
// no platform yet; the Topology must outlive the Platform. Routes, cable state and hosts are only valid inside the run.
//
//            spine0 ........ spineS ---- storage         one zone "traintwin"; every vertex keeps its topology name
//            /    \          /    \                      GPU      -> host, speed = GPU dense bf16 peak
//        leaf ... leaf    leaf ... leaf                  switches -> routers (NVSwitch, leaf, spine)
//         |  \      |      |                             storage  -> host "storage"
//   n0/gpu0 ... n0/gpu7  n1/gpu0 ...                     cable a~b -> links "a~b>" (a->b) and "a~b<" (b->a): full duplex
//        \       /                                       mgmt     -> host with no link (controller, jobs, faults)
//      [n0/nvswitch]
//
// Routing: the route between two hosts is the topology's own fewest-hops path, with ties spread ECMP-style by a hash
// of the endpoints (Topology::ecmp_path), never through the storage target. A shortest-path zone (Dijkstra) would
// break ties the same way for every pair and funnel all traffic between two leaf groups through one spine.
// Links carry bandwidth only (zero latency in SimGrid): with CM02 a flow's share of a link is inversely proportional
// to its route latency (RTT-unfair, TCP-like); InfiniBand/RoCE fabrics share closer to max-min fair. Latency is added
// analytically: a collective's is the CommPlanner's (sim/collective.hpp), a checkpoint write's its route().latency.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/model/units.hpp"
#include "core/topo/topology.hpp"

namespace simgrid::s4u {
class Host;
class Link;
class Mailbox;
}  // namespace simgrid::s4u

namespace tt::sim {

// Sets SimGrid's network model and factors so that a flow gets exactly its max-min share of link bandwidth (CM02, no
// cross-traffic, unit factors, no TCP window bound, no RTT weighting). Call after creating the Engine, before any
// platform. Returns the settings for the report, with "simgrid_version".
std::map<std::string, std::string> pin_network_model();

struct Route {
  std::vector<simgrid::s4u::Link*> links;  // in order, each in the direction crossed
  std::vector<int> link_ids;               // ... each link's index, below Platform::link_count()
  std::vector<int> cables;                 // the topology edge (index in Topology::edges()) of each hop
  Seconds latency;                         // sum of the cables' latencies
};

class Platform {
 public:
  explicit Platform(const Topology& topology);  // throws std::invalid_argument if the topology cannot be simulated
  ~Platform();
  Platform(const Platform&) = delete;
  Platform& operator=(const Platform&) = delete;

  const Topology& topology() const;
  simgrid::s4u::Host* gpu(int global_gpu) const;  // node * gpus_per_node + local
  simgrid::s4u::Host* storage() const;            // nullptr when the topology has no storage
  // The storage host of a site (Topology::sites()); storage() for a one-site topology. nullptr when it has none.
  simgrid::s4u::Host* storage_of_site(int site) const;
  simgrid::s4u::Host* mgmt() const;
  // The route SimGrid uses now from one GPU/storage host to another. The object for a pair lives as long as the
  // Platform; its content changes when cables go down or up (an equal-hop path avoiding down cables, if any).
  const Route& route(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to) const;
  // The same between two GPUs by global index, without going through their hosts; and where the pair's route is
  // first looked for, for __builtin_prefetch (compile_group() looks up thousands in a row: their cache misses overlap).
  const Route& gpu_route(int from_gpu, int to_gpu) const;
  const void* gpu_route_entry(int from_gpu, int to_gpu) const;

  // Fault injection (call from an actor). Downs nest: a cable is up again when every cable_down() was matched by a
  // cable_up(). A down cable turns off both of its links; flows crossing it fail.
  void cable_down(int cable);
  void cable_up(int cable);
  bool cable_is_up(int cable) const;
  // Bandwidth set aside on a directional link (2 x cable + 1 when crossed target -> source) for the traffic of a
  // fast-forwarding job (job.cpp): `bytes_per_second` of `pairs` GPU pairs, both > 0 to take it and < 0 to give it
  // back. Flows on the link get what is left (what max-min sharing leaves a flow next to capped flows that get their
  // caps), and never less than a share equal to each pair's (as max-min would give it when the reserved rates add up
  // to about the link or more).
  void reserve(int link, double bytes_per_second, int pairs);
  // reserve() on each of `links` with sign x bytes[i] / seconds and sign x pairs[i] (sign +1 or -1), in order, each
  // SimGrid link they touch set once at the end (a leaf's bonded spine cables: once, not once per member): the same
  // bandwidths as one reserve() after the other.
  void reserve(const std::vector<int>& links, const std::vector<double>& bytes, double seconds,
               const std::vector<int>& pairs, int sign);
  // A cable runs at `factor` of its bandwidth (a storage_slow fault); reservations are taken from what is left.
  void set_bandwidth_factor(int cable, double factor);
  std::uint64_t generation() const;  // changes whenever a cable goes down or up (routes may then move)
  // forward: source(edge) -> target(edge). Parallel cables (the same two ends) share one bonded link per direction,
  // whose bandwidth is the sum of the members that are up.
  simgrid::s4u::Link* link(int cable, bool forward) const;
  // SimGrid links are numbered 0 .. link_count() - 1 (Route::link_ids): a bond's members share their links' numbers.
  int link_count() const;
  // The number of directional link `link` (2 x cable + 1 when crossed target -> source; reserve()).
  int link_id(int link) const;
  // The bandwidth of the link numbered `link_id` now and whether it is on: its SimGrid link's, kept beside it.
  double bandwidth(int link_id) const;
  // ... and what it would be with nothing reserved on it: its cable's (or its bond's members that are up) bandwidth
  // times the cables' factors.
  double capacity(int link_id) const;
  std::uint64_t capacity_changes() const;  // changes whenever a link's capacity does (faults, bandwidth factors)
  bool link_is_on(int link_id) const;
  // Whether every route stays off the GPUs and NVSwitches of nodes other than its two ends' (so a cable at a GPU
  // carries only routes from or to its node). True of the generated one-site fabrics (rail-optimized, nvlink-rack,
  // leaf-spine, single-node): a path through a third node's GPUs enters and leaves it by two of its links more than
  // the leaf-spine path (or the ends' own NVSwitch) it ties with, so it is never among the fewest-hop paths routes
  // take. Not assumed of an explicit fabric.
  bool routes_stay_on_end_nodes() const;
  // Host pairs whose route has been looked up (each keeps its route for the Platform's life), and the bytes of the
  // pair index that finds them: a work and memory counter for bench_fleet.
  long long routes_kept() const;
  std::size_t route_index_bytes() const;
  // Cables attached to the node's GPUs (NVLink and NIC cables): a crashed node takes them down with it.
  std::vector<int> node_cables(int node) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace tt::sim
