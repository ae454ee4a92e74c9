#include "real/worker.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>

#include "real/checkpoint.hpp"
#include "real/checksum.hpp"
#include "real/collective.hpp"
#include "real/launcher.hpp"
#include "real/protocol.hpp"
#include "real/training.hpp"
#include "real_support.hpp"

using namespace tt::real;
using tt::testing::real_scratch;
using tt::testing::slurp;

namespace {

struct Finished {
  std::vector<WireMsg> messages;
  int status = 0;
  std::string log;
};

// Runs one worker process per config to its end and collects what each reported.
std::vector<Finished> run_workers(const std::vector<WorkerConfig>& configs, const std::filesystem::path& dir) {
  std::vector<Process> procs;
  std::vector<Finished> out(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    std::vector<std::string> argv{TT_REAL_WORKER};
    for (auto& a : worker_arguments(configs[i])) argv.push_back(a);
    procs.push_back(spawn_process(argv, dir / ("worker-" + std::to_string(i) + ".log")));
  }
  std::vector<std::string> pending(configs.size());
  std::size_t open = procs.size();
  while (open > 0) {
    std::vector<pollfd> fds;
    for (auto& p : procs) fds.push_back({p.report ? p.report.get() : -1, POLLIN, 0});
    REQUIRE(::poll(fds.data(), fds.size(), 60000) > 0);
    for (std::size_t i = 0; i < procs.size(); ++i) {
      if (!fds[i].revents) continue;
      char buf[4096];
      ssize_t n = ::read(procs[i].report.get(), buf, sizeof buf);
      if (n < 0 && errno == EAGAIN) continue;
      REQUIRE(n >= 0);
      if (n == 0) {
        procs[i].report.reset();
        --open;
        continue;
      }
      pending[i].append(buf, static_cast<std::size_t>(n));
      while (pending[i].size() >= sizeof(WireMsg)) {
        WireMsg m;
        std::memcpy(&m, pending[i].data(), sizeof m);
        pending[i].erase(0, sizeof m);
        if (m.kind != MsgKind::Heartbeat) out[i].messages.push_back(m);
      }
    }
  }
  for (std::size_t i = 0; i < procs.size(); ++i) {
    out[i].status = reap(procs[i].pid, "worker");
    out[i].log = slurp(dir / ("worker-" + std::to_string(i) + ".log"));
  }
  return out;
}

WorkerConfig config(const std::filesystem::path& dir, int rank, int world, std::int64_t iterations) {
  WorkerConfig c;
  c.job_dir = (dir / "job").string();
  c.attempt_dir = (dir / "attempt").string();
  c.job_name = "unit";
  c.rank = rank;
  c.world = world;
  c.iterations = iterations;
  c.checkpoint_every = 10;
  c.seed = 42;
  c.workload = Workload{2, 16, 8, 5000};
  c.compute = "synthetic";
  return c;
}

// What two ranks must compute: with two ranks a sum all-reduce is g0 + g1 in any order, so the expected state can be
// replayed in this process.
TrainState replay_two_ranks(const WorkerConfig& c, std::int64_t iterations, int rank) {
  TrainState s[2] = {initial_state(c.seed, 0, 2, c.workload), initial_state(c.seed, 1, 2, c.workload)};
  auto step = make_compute_step(c.compute, c.workload);
  std::vector<float> g0, g1;
  for (std::int64_t i = 0; i < iterations; ++i) {
    step->gradients(s[0], g0);
    step->gradients(s[1], g1);
    for (std::size_t j = 0; j < g0.size(); ++j) g0[j] += g1[j];
    apply_update(s[0], g0);
    apply_update(s[1], g0);
  }
  return s[rank];
}

}  // namespace

TEST_CASE("worker arguments round-trip and reject mistakes", "[real][unit]") {
  WorkerConfig c = config("/tmp/x", 1, 4, 77);
  c.pace_seconds = 0.125;
  c.startup_seconds = 1.0 / 3;
  WorkerConfig back = parse_worker_arguments(worker_arguments(c));
  CHECK(back.rank == 1);
  CHECK(back.world == 4);
  CHECK(back.iterations == 77);
  CHECK(back.workload.params == 5000);
  CHECK(back.startup_seconds == c.startup_seconds);  // exact: printed with 17 digits
  CHECK(back.job_dir == "/tmp/x/job");

  auto args = worker_arguments(c);
  auto without = [&](const std::string& flag) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < args.size(); i += 2)
      if (args[i] != flag) out.insert(out.end(), {args[i], args[i + 1]});
    return out;
  };
  CHECK_THROWS_WITH(parse_worker_arguments(without("--rank")), "worker: --rank is required");
  auto bad = args;
  bad.insert(bad.end(), {"--bogus", "1"});
  CHECK_THROWS_WITH(parse_worker_arguments(bad), Catch::Contains("unknown argument \"--bogus\""));
  bad = without("--world");
  bad.insert(bad.end(), {"--world", "two"});
  CHECK_THROWS_WITH(parse_worker_arguments(bad), Catch::Contains("--world: malformed value \"two\""));
  bad = without("--rank");
  bad.insert(bad.end(), {"--rank", "4"});
  CHECK_THROWS_WITH(parse_worker_arguments(bad), Catch::Contains("inconsistent"));
}

TEST_CASE("the attention step runs the kernels and is deterministic", "[real][unit]") {
  Workload w{2, 32, 16, 3 * 2 * 32 * 16 + 100};
  TrainState s = initial_state(5, 0, 1, w);
  auto step = make_compute_step("attention", w);
  CHECK(std::string(step->name()) == "attention");
  std::vector<float> g1, g2;
  step->gradients(s, g1);
  make_compute_step("attention", w)->gradients(s, g2);
  CHECK(g1 == g2);
  // q, k and v get attention gradients, not the closed form the rest gets.
  std::vector<float> closed(g1.size());
  closed_form_gradients(s, 0, static_cast<std::int64_t>(g1.size()), closed);
  CHECK(g1[0] != closed[0]);
  CHECK(g1.back() == closed.back());
  for (float g : g1) REQUIRE(std::isfinite(g));
  CHECK_THROWS_WITH(make_compute_step("cuda", w), Catch::Contains("unknown compute step \"cuda\""));
}

TEST_CASE("training state encodes and decodes exactly, and refuses garbage", "[real][unit]") {
  TrainState s = initial_state(9, 1, 3, Workload{1, 16, 8, 1000});
  s.iteration = 12;
  TrainState back = decode_state(encode_state(s));
  CHECK(back.seed == 9);
  CHECK(back.rank == 1);
  CHECK(back.world == 3);
  CHECK(back.iteration == 12);
  CHECK(back.params == s.params);
  CHECK_THROWS_WITH(decode_state("nonsense"), Catch::Contains("not a traintwin training state"));
  CHECK_THROWS_WITH(decode_state(encode_state(s).substr(0, 100)), Catch::Contains("expected"));
}

TEST_CASE("the workload is scaled down from the plan with a cap", "[real][unit]") {
  tt::JobSpec job;
  job.model = *tt::find_model_preset("llama3-8b");
  job.parallel.tp = 2;
  job.seq_len = 4096;
  tt::IterationPlan plan;
  Workload w = workload_for(job, plan);  // no dp step: the attention gradients only
  CHECK(w.heads == 4);
  CHECK(w.head_dim == 32);
  CHECK(w.seq == 64);
  CHECK(w.params == 3 * 4 * 64 * 32);
  plan.steps.push_back({"dp", {tt::CommGroup{tt::Collective::AllReduce, {0, 1}, tt::Bytes(4e11), 1}}});
  CHECK(workload_for(job, plan).params == kGradCapBytes / 4);
  plan.steps.back().groups[0].bytes = tt::Bytes(2e9);
  CHECK(workload_for(job, plan).params == static_cast<std::int64_t>(2e9 * kGradScale / 4));
}

TEST_CASE("two workers train through Gloo to the state the seed determines", "[real][gloo]") {
  const std::string compute = GENERATE(as<std::string>{}, "synthetic", "attention");
  auto dir = real_scratch("worker-two-ranks-" + compute);
  std::vector<WorkerConfig> cs = {config(dir, 0, 2, 30), config(dir, 1, 2, 30)};
  for (auto& c : cs) c.compute = compute;
  INFO("compute step " << compute);
  auto done = run_workers(cs, dir);
  for (int r = 0; r < 2; ++r) {
    INFO("rank " << r << " log:\n" << done[r].log);
    REQUIRE(WIFEXITED(done[r].status));
    REQUIRE(WEXITSTATUS(done[r].status) == 0);
    REQUIRE(!done[r].messages.empty());
    CHECK(done[r].messages.front().kind == MsgKind::Hello);
    CHECK(done[r].messages.back().kind == MsgKind::Done);
    int checkpoints = 0, progress = 0;
    std::map<std::uint32_t, int> phases;  // PhaseId -> messages (every rank times its phases: calibrate --from-run)
    for (const auto& m : done[r].messages) {
      checkpoints += m.kind == MsgKind::Checkpoint;
      progress += m.kind == MsgKind::Progress;
      if (m.kind == MsgKind::Phase) {
        ++phases[m.value];
        CHECK(m.seconds >= 0);
        CHECK(m.iteration >= 1);
      }
    }
    CHECK(checkpoints == 3);               // after 10, 20 and 30 (the last is also the final one)
    CHECK(progress == (r == 0 ? 30 : 0));  // rank 0 reports progress
    for (PhaseId p : {PhaseId::Compute, PhaseId::AllReduce, PhaseId::Update})
      CHECK(phases[static_cast<std::uint32_t>(p)] == 30);
    CHECK(phases.size() == 3);
  }
  for (std::int64_t it : {10, 20, 30}) CHECK(verify_checkpoint(cs[0].job_dir, it, 2).empty());
  for (int r = 0; r < 2; ++r) {
    TrainState expected = replay_two_ranks(cs[0], 30, r);
    std::string final_state = read_rank_state(cs[0].job_dir, 30, r, 2);
    CHECK(final_state == encode_state(expected));
    CHECK(done[r].messages.back().value == crc32c(final_state));
  }

  SECTION("resumed from the checkpoint after iteration 20, they end in the same state") {
    std::string expected0 = read_rank_state(cs[0].job_dir, 30, 0, 2);
    remove_checkpoints_after(cs[0].job_dir, 20);
    for (auto& c : cs) {
      c.start_iteration = 20;
      c.attempt_dir = (dir / "attempt-2").string();
    }
    auto again = run_workers(cs, dir);
    CHECK(WEXITSTATUS(again[0].status) == 0);
    CHECK(again[0].messages.front().iteration == 20);
    CHECK(read_rank_state(cs[0].job_dir, 30, 0, 2) == expected0);
  }
  SECTION("a worker refuses a corrupt checkpoint and says why") {
    const auto file = checkpoint_path(cs[0].job_dir, 20) / state_file_name(1);
    std::string data = slurp(file);
    data[data.size() / 2] ^= 0x40;
    tt::testing::overwrite(file, data);
    WorkerConfig c = cs[1];
    c.start_iteration = 20;
    auto refused = run_workers({c}, dir);
    CHECK(WEXITSTATUS(refused[0].status) == 1);
    CHECK_THAT(refused[0].log, Catch::Contains("checkpoint after iteration 20 refused") &&
                                   Catch::Contains("rank-00001.state") && Catch::Contains("(corrupt)"));
    CHECK(refused[0].messages.back().kind == MsgKind::Error);
  }
}
