// CommPlanner: how one group's collective runs on its GPUs, and how long it takes. For every algorithm and protocol
// that can run the collective it lays out the transfers (rail-aligned ring channels, double binary trees, NVLS
// exchanges with the switch, the three phases of a hierarchical all-reduce, point-to-point sends), predicts one call's
// time NCCL's way (latency + size / bandwidth, with NCCL's constants: comm_constants.hpp) and keeps the fastest by
// NCCL's figures, as NCCL's tuning does; the calibrated corrections (CommConstants::regime) then give the predicted
// time (with `selection` Fastest they also pick). The chosen transfers go into the CommGroup, so the SimGrid driver
// executes the same plan.
//
// Bandwidth: each phase's transfers are routed over the Topology: a transfer between nodes on different rails first
// crosses to the GPU on the destination's rail (NCCL's PXN), then every transfer follows the fewest-hops paths, split
// evenly where they tie (ideal ECMP; never through the storage target). The most loaded link direction gives the raw
// algorithm bandwidth. NCCL's refinements then apply on the bus bandwidth it implies: the link
// efficiency of the bottleneck medium, the LL / LL128 / tree factors and per-channel caps, the tree correction by
// size. Each transfer's share is scaled by raw / refined bandwidth, so an uncontended simulation of the transfers
// takes the predicted time. Latency: NCCL's base + per-step latencies (comm_planner.cpp documents each formula).
// Holds a reference to the Topology, which must outlive it. Not thread-safe (it caches routes: past
// kRouteCacheEntries segment ids and link directions in all, or kRouteIndexBytes in its pair indexes and routes'
// headers, it starts over at the next phase and frees them: a month of fleet placements meets many GPU pairs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/plan/comm_constants.hpp"
#include "core/plan/iteration_plan.hpp"
#include "core/topo/pair_index.hpp"
#include "core/topo/topology.hpp"

namespace tt {

class CommPlanner {
 public:
  CommPlanner(const Topology& topo, CommConstants k);

  const CommConstants& constants() const { return k_; }
  const Topology& topology() const { return topo_; }

  struct Option {
    Algorithm algorithm = Algorithm::Ring;
    Protocol protocol = Protocol::Simple;
    Seconds latency;       // per call
    Seconds time;          // of one call of `size` bytes, uncontended
    BytesPerSecond algbw;  // size / time
    Seconds nccl_time;     // the same by NCCL's own figures (no correction): what NCCL's tuning compares
  };
  // Every enabled way to run the collective on these GPUs (global indices, rank order), in the planner's order:
  // algorithms as the collective lists them, protocols LL, LL128, Simple (point-to-point: Simple, enabled or not, as
  // in NCCL). Empty for fewer than two distinct GPUs.
  std::vector<Option> options(Collective c, const std::vector<int>& gpus, Bytes size, int root = 0) const;
  // Whether the planner picks `a` before `b`: the faster by NCCL's figures or by the corrected times, as
  // CommConstants::selection says (plan() keeps the earlier of two equal ones).
  bool prefers(const Option& a, const Option& b) const {
    return k_.selection == Selection::Nccl ? a.nccl_time < b.nccl_time : a.time < b.time;
  }

  // Plans `calls` calls of `size` bytes each: the option it prefers (prefers(); ties to the earlier), or `force` if
  // given and possible (else the preferred). The group's bytes are size x calls. Without any option the group has no
  // phases: it moves nothing (fewer than two distinct GPUs) or cannot run under these constants (require_planned()
  // refuses it).
  // Plans are kept by their arguments (about kPlansBytes of them, then it starts over): a job restarted on a placement
  // that differs by a node plans again only the groups that node is in. On a fabric whose leaf groups of a size are
  // alike and whose nodes are alike (interchangeable(): a generated rail-optimized or leaf-spine fabric of one site),
  // a plan is kept by its shape instead: its nodes in index order, each one's leaf group as numbered in order of first
  // appearance and that group's class, and each GPU as (node position, position of its local index among those the
  // group uses). A group of the same shape elsewhere or again (other nodes, other groups of the same classes, other
  // rails in the same order: a job's data-parallel groups, one per rail) takes that plan with its GPUs renamed (the
  // renaming is the fabric's symmetry: the same links carry the same loads), instead of routing every transfer again;
  // only a plan that names a GPU off its group's nodes or rails is kept by its arguments there. (Kept by arguments as
  // well, a 16,384-GPU fleet month's plans filled 64 MiB, and a lookup cost more than the renaming it saved.)
  CommGroup plan(Collective c, std::vector<int> gpus, Bytes size, int calls = 1, int root = 0,
                 std::optional<std::pair<Algorithm, Protocol>> force = std::nullopt) const;

  // Whether plans are kept by shape (above): leaf groups of one class have the same node count and the same links to
  // the spines, a group's leaves (one per rail) have the same links, and every node's GPUs, NVSwitch and NICs have the
  // same links.
  bool interchangeable() const { return !group_class_.empty(); }
  std::uint64_t shape_reuses() const { return shape_reuses_; }  // plans taken by shape (tests, benches)

  // The closed-form time of a planned group from its transfers: calls x latency + bytes x the sum over phases of the
  // most loaded link direction's load / bandwidth. Equals plan()'s prediction.
  Seconds predict(const CommGroup& g) const;

 private:
  struct Built;
  struct PhaseCost {
    double seconds_per_byte = 0;  // of the most loaded link direction
    LinkKind bottleneck = LinkKind::NvLink;
    double nvlink_seconds_per_byte = 0;  // of the most loaded NVLink direction (NvlsTree's bwIntra)
    double other_seconds_per_byte = 0;   // ... and of the most loaded other one (NICs, fabric: its bwInter)
  };
  PhaseCost phase_cost(const CommPhase& phase) const;
  // A route is cut at every hop distance where all of its paths meet in one vertex (a GPU's switch, a leaf): the part
  // between two such vertices depends only on them, so it is kept once, as a segment, and shared by every GPU pair whose
  // paths meet there (every pair between two leaves shares the split over the spines).
  using Segment = std::vector<std::pair<int, double>>;  // (link direction, fraction of a unit entering at its start)
  using Route = std::vector<int>;                       // segments, in order
  const Route& route(int from, int to) const;
  // The next hops from `v` toward the switch (or GPU) `root`: the links to neighbours one hop nearer to it, in the
  // order of v's links, computed once per (v, root) from root's hop table (`hops`). route() walks toward a GPU through
  // these lists instead of scanning every link of every vertex it passes (a spine's hundreds of leaf links per route).
  struct NextHop {
    VertexId to = 0;
    int direction = 0;  // link direction, as in load_
    int ordinal = 0;    // position among v's links: merges keep the scan's order
  };
  std::pair<std::uint32_t, std::uint32_t> next_hops(VertexId v, VertexId root,  // a range of next_hops_
                                                    const Topology::HopDistances& hops) const;
  // What route() reads about a destination GPU, once per planner: its hop distances and, when it has few neighbours
  // and none is the storage target, theirs (the ties at a vertex are the union of its next hops toward the nearest).
  struct Via {
    VertexId root;
    Topology::HopDistances hops;
  };
  struct Toward {
    Topology::HopDistances hops;
    std::vector<Via> via;
    bool by_next_hops = false;
  };
  const Toward& toward_gpu(int to, VertexId dst) const;
  // route()'s working vectors, kept between calls (route() is called ~10^5 times per large plan).
  struct Scratch {
    std::vector<VertexId> frontier, next;
    std::vector<double> frontier_mass;
    std::vector<std::pair<VertexId, int>> ties;
    std::vector<std::pair<VertexId, std::size_t>> cuts;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> lists;
    std::vector<NextHop> merged;
  };
  std::optional<Built> build(Collective c, Algorithm a, const std::vector<int>& gpus, int root) const;
  std::optional<std::pair<Option, std::vector<double>>> evaluate(const Built& b, Protocol p, Bytes size) const;

  CommGroup plan_anew(Collective c, std::vector<int> gpus, Bytes size, int calls, int root,
                      std::optional<std::pair<Algorithm, Protocol>> force) const;

  bool route_cache_full() const;  // past either bound below: phase_cost() starts over

  static constexpr std::size_t kRouteCacheEntries = std::size_t{1} << 23;  // segment ids and entries
  static constexpr std::size_t kRouteIndexBytes = std::size_t{128} << 20;  // pair indexes, route and tail headers
  static constexpr std::size_t kPlansBytes = std::size_t{64} << 20;

  const Topology& topo_;
  CommConstants k_;
  mutable std::vector<Route> routes_;
  mutable PairIndex route_index_;  // by (GPU, GPU): position in routes_ + 1
  mutable std::size_t route_entries_ = 0;  // segment ids in routes_ and entries in segments_
  mutable std::vector<Segment> segments_;
  mutable std::unordered_map<std::uint64_t, int> segment_of_;  // by (start vertex, end vertex)
  mutable std::vector<Route> tails_;  // the rest of a route from a cut vertex to a GPU
  mutable PairIndex tail_index_;      // by (cut vertex, GPU vertex): position in tails_ + 1
  mutable std::vector<double> load_;  // by link direction: 2 x link index + (1 when crossed target -> source)
  mutable std::vector<int> touched_;
  mutable std::vector<double> segment_share_;  // by segment: phase_cost() scratch
  mutable std::vector<int> touched_segments_;
  mutable std::vector<double> mass_;  // by vertex: route() scratch
  mutable Scratch scratch_;
  mutable std::vector<std::optional<Toward>> toward_;  // by GPU
  mutable std::vector<NextHop> next_hops_;
  // By (root, v): position + 1 in next_hop_ranges_ of v's range in next_hops_ (rows are the few roots: switches).
  mutable PairIndex next_hops_index_;
  mutable std::vector<std::pair<std::uint32_t, std::uint32_t>> next_hop_ranges_;
  mutable std::unordered_map<std::string, CommGroup> plans_;  // plan() by its arguments, as bytes
  mutable std::size_t plans_bytes_ = 0;                        // their keys' and transfers' bytes
  // By shape (plan()): GPUs numbered node position x GPUs per node + local index. Empty classes: not interchangeable.
  std::vector<int> group_class_;  // by leaf group
  mutable std::unordered_map<std::string, CommGroup> shapes_;
  mutable std::size_t shapes_bytes_ = 0;
  mutable std::uint64_t shape_reuses_ = 0;
};

// The global GPU index of a GPU vertex and back.
VertexId gpu_vertex(const Topology& topo, int global_gpu);

}  // namespace tt
