#include "core/plan/nccl_settings.hpp"

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <sstream>

#include "core/fault/detection.hpp"
#include "core/plan/comm_planner.hpp"
#include "tests/core/plan/comm_fixture.hpp"

using namespace tt;
namespace pt = boost::property_tree;

namespace {

// Every element named `tag` anywhere under `tree`, by its attributes.
void collect(const pt::ptree& tree, const std::string& tag, std::vector<pt::ptree>& out) {
  for (const auto& [name, child] : tree) {
    if (name == tag) out.push_back(child.get_child("<xmlattr>", pt::ptree{}));
    collect(child, tag, out);
  }
}

pt::ptree parse(const std::string& xml) {
  std::istringstream in(xml);
  pt::ptree tree;
  pt::read_xml(in, tree);  // throws on malformed XML
  return tree;
}

}  // namespace

TEST_CASE("the IB communication timeout: 4.096 us x 2^timeout per try, 1 + retry_cnt tries", "[unit][plan]") {
  CHECK(ib_comm_timeout(20, 7).value == Approx(4.096e-6 * 1048576 * 8));  // NCCL's defaults: 34.4 s
  CHECK(ib_comm_timeout(14, 0).value == Approx(4.096e-6 * 16384));
  CHECK(ib_comm_timeout(18, 7).value == Approx(ib_comm_timeout(20, 7).value / 4));
  CommConstants k;
  CHECK(ib_comm_timeout(k).value == Approx(34.36).epsilon(0.001));
  // Whether an outage fails a job is the detection rule's (core/fault/detection.hpp), over this timeout.
  RecoveryPolicy p;
  p.comm_timeout = ib_comm_timeout(k);
  CHECK(DetectionRules(p).fails_job(Seconds(60)));
  CHECK_FALSE(DetectionRules(p).fails_job(Seconds(30)));
  CHECK(DetectionRules(p).fails_job(p.comm_timeout));  // an outage of exactly the timeout fails the job
  k.ib_timeout = 22;
  p.comm_timeout = ib_comm_timeout(k);
  CHECK_FALSE(DetectionRules(p).fails_job(Seconds(60)));  // 137 s: a minute's outage only slows the job
}

TEST_CASE("NCCL topology XML is well-formed and lists every GPU and NIC of the node once", "[unit][plan]") {
  Topology topo = testing::h100_nodes(4);
  const std::string xml = nccl_topo_xml(topo, 2);
  pt::ptree tree = parse(xml);
  REQUIRE(tree.count("system") == 1);
  CHECK(tree.get<int>("system.<xmlattr>.version") == 1);
  std::vector<pt::ptree> gpus, nets, cpus, nvlinks;
  collect(tree, "gpu", gpus);
  collect(tree, "net", nets);
  collect(tree, "cpu", cpus);
  collect(tree, "nvlink", nvlinks);
  CHECK(cpus.size() == 2);
  REQUIRE(gpus.size() == 8);
  REQUIRE(nets.size() == 8);
  std::set<int> devs, ranks;
  std::set<std::string> names;
  for (const auto& g : gpus) {
    devs.insert(g.get<int>("dev"));
    ranks.insert(g.get<int>("rank"));
    CHECK(g.get<int>("sm") == 90);
  }
  for (const auto& n : nets) {
    names.insert(n.get<std::string>("name"));
    CHECK(n.get<long>("speed") == 400000);  // Mb/s
  }
  CHECK(devs == std::set<int>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(*ranks.begin() == 16);  // node 2's first global rank
  CHECK(names.size() == 8);
  CHECK(names.count("mlx5_0"));
  REQUIRE(nvlinks.size() == 8);
  for (const auto& l : nvlinks) CHECK(l.get<int>("count") == 18);  // 450 GB/s of 25 GB/s NVLink4 links
  std::map<std::string, int> busids;
  std::vector<pt::ptree> pcis;
  collect(tree, "pci", pcis);
  for (const auto& p : pcis) ++busids[p.get<std::string>("busid")];
  for (const auto& [id, count] : busids) CHECK(count == 1);

  // A node without NICs lists its GPUs and no net.
  pt::ptree single = parse(nccl_topo_xml(testing::h100_nodes(1), 0));
  std::vector<pt::ptree> g1, n1;
  collect(single, "gpu", g1);
  collect(single, "net", n1);
  CHECK(g1.size() == 8);
  CHECK(n1.empty());
}

TEST_CASE("NCCL environment for a placement: algorithms and protocols chosen, NICs used, IB settings", "[unit][plan]") {
  Topology topo = testing::h100_nodes(4);
  CommConstants k = comm_constants(topo.gpu());
  CommPlanner planner(topo, k);
  CommStep tp{"tp", {planner.plan(Collective::AllReduce, testing::first_gpus(8), Bytes(64e6))}};
  CommStep dp{"dp", {planner.plan(Collective::AllReduce, {2, 10, 18, 26}, Bytes(1e9))}};
  auto env = nccl_env(topo, testing::first_gpus(32), {tp, dp}, k, "/tmp/topo.xml");
  std::map<std::string, std::string> m(env.begin(), env.end());
  CHECK(m.at("NCCL_ALGO").find("NVLS") != std::string::npos);
  CHECK(m.at("NCCL_ALGO").find("Ring") != std::string::npos);
  CHECK(m.at("NCCL_IB_HCA") == "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1");
  CHECK(m.at("NCCL_IB_TIMEOUT") == "20");
  CHECK(m.at("NCCL_IB_RETRY_CNT") == "7");
  CHECK(m.at("NCCL_SOCKET_IFNAME") == "eth0");
  CHECK(m.at("NCCL_MAX_CTAS") == "32");
  CHECK(m.at("NCCL_TOPO_FILE") == "/tmp/topo.xml");
  CHECK(std::stoi(m.at("NCCL_MIN_CTAS")) <= 32);
  auto only_rail2 = nccl_env(topo, {2, 10}, {dp}, k);
  std::map<std::string, std::string> m2(only_rail2.begin(), only_rail2.end());
  CHECK(m2.at("NCCL_IB_HCA") == "=mlx5_2:1");
  CHECK(m2.count("NCCL_TOPO_FILE") == 0);
}
