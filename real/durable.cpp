#include "real/durable.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/io/observed_events.hpp"
#include "real/launcher.hpp"
#include "real/worker_pool.hpp"

namespace tt::real {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr char kStart = 'S', kEvent = 'E', kActions = 'A', kFault = 'F', kOutage = 'C', kRestart = 'R';

double realtime_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

json parse_record(const JournalRecord& r, const fs::path& file) {
  json j = json::parse(r.payload, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw std::runtime_error(file.string() + ": the record at offset " + std::to_string(r.offset) +
                             " passes its checksum but is not a JSON object (written by another version?)");
  return j;
}

std::pair<Seconds, Event> decode_event(const json& j, const fs::path& file, const Scenario& sc) {
  std::istringstream in(j.dump());
  ObservedLog log = read_observed_log(in, file.string(), &sc);
  if (log.events.size() != 1) throw std::runtime_error(file.string() + ": an event record without one event");
  return log.events.front();
}

bool same_event(const Event& a, const Event& b) { return observed_to_json(a, Seconds(0)) == observed_to_json(b, Seconds(0)); }

std::vector<int> nodes_of(const Launch& l, int gpn) {
  std::vector<int> nodes;
  for (int g : l.gpus)
    if (std::find(nodes.begin(), nodes.end(), g / gpn) == nodes.end()) nodes.push_back(g / gpn);
  return nodes;
}

// The job directory a worker was started with, made absolute against its own working directory; empty if none.
fs::path worker_job_dir(const fs::path& proc) {
  std::ifstream in(proc / "cmdline", std::ios::binary);
  std::vector<std::string> argv;
  for (std::string arg; std::getline(in, arg, '\0');) argv.push_back(arg);
  for (std::size_t i = 0; i + 1 < argv.size(); ++i)
    if (argv[i] == "--job-dir") {
      fs::path dir = argv[i + 1];
      std::error_code ec;
      if (dir.is_relative()) dir = fs::read_symlink(proc / "cwd", ec) / dir;
      return ec ? fs::path() : fs::weakly_canonical(dir, ec);
    }
  return {};
}

bool alive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

// Workers of the crashed driver that are still alive (PR_SET_PDEATHSIG normally took them with it) cannot be
// reattached, since their report pipes died with the driver: they are killed, and the count returned.
int kill_orphans(const fs::path& run_dir) {
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(fs::absolute(run_dir), ec);
  std::vector<pid_t> found;
  for (auto it = fs::directory_iterator("/proc", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const fs::directory_entry& e = *it;
    const std::string name = e.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (pid == ::getpid()) continue;
    const fs::path dir = worker_job_dir(e.path());
    if (dir.empty() || dir.parent_path() != root) continue;
    if (::kill(pid, SIGKILL) == 0) found.push_back(pid);
  }
  for (int tries = 0; tries < 500 && std::any_of(found.begin(), found.end(), alive); ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return static_cast<int>(found.size());
}

}  // namespace

std::string actions_digest(const std::vector<Action>& actions) {
  json out = json::array();
  for (const Action& a : actions) {
    if (const auto* l = std::get_if<Launch>(&a))
      out.push_back({"launch", l->job, l->attempt, l->gpus, l->start_iteration, l->iterations, l->checkpoint_every,
                     l->checkpoint_keep, l->startup.value});
    else if (const auto* k = std::get_if<Kill>(&a))
      out.push_back({"kill", k->job, k->attempt, k->reason});
    else if (const auto* c = std::get_if<Cordon>(&a))
      out.push_back({"cordon", c->node, c->reason});
    else if (const auto* u = std::get_if<Uncordon>(&a))
      out.push_back({"uncordon", u->node});
    else if (const auto* f = std::get_if<FireAlert>(&a))
      out.push_back({"fire", f->name, f->severity, f->labels, f->value});
    else if (const auto* r = std::get_if<ResolveAlert>(&a))
      out.push_back({"resolve", r->name, r->labels});
    else if (const auto* m = std::get_if<Reimage>(&a))
      out.push_back({"reimage", m->node, m->release, m->duration.value});
  }
  return out.dump();
}

DurableRun::DurableRun(Journal journal, JournalContents contents)
    : journal_(std::move(journal)), contents_(std::move(contents)) {}

void DurableRun::append_json(char type, const json& j) { journal_.append(type, j.dump()); }

std::unique_ptr<DurableRun> DurableRun::begin(const fs::path& run_dir, json start) {
  make_private_dirs(run_dir);
  std::unique_ptr<DurableRun> d(new DurableRun(Journal::create(run_dir / "journal"), JournalContents{}));
  d->t0_ = monotonic_seconds();
  start["clock"] = {{"monotonic", d->t0_}, {"realtime", realtime_seconds()}, {"boot_id", boot_id()}};
  d->time_scale_ = start["options"].value("time_scale", 1.0);
  d->start_ = std::move(start);
  d->append_json(kStart, d->start_);
  return d;
}

std::unique_ptr<DurableRun> DurableRun::reopen(const fs::path& run_dir) {
  const fs::path file = run_dir / "journal";
  if (!fs::exists(file))
    throw std::invalid_argument("no journal at " + file.string() + " (--resume takes the --out directory of a run " +
                                "that `traintwin real` started)");
  JournalContents contents;
  Journal journal = Journal::open(file, contents);
  if (contents.records.empty() || contents.records.front().type != kStart)
    throw std::invalid_argument(file.string() + " has no start record: the run crashed before it began; start it again");
  std::unique_ptr<DurableRun> d(new DurableRun(std::move(journal), std::move(contents)));
  d->resumed_ = true;
  d->start_ = parse_record(d->contents_.records.front(), file);
  const json& clock = d->start_.at("clock");
  // CLOCK_MONOTONIC is one clock for every process of a boot; after a reboot, the wall clock bridges the gap.
  d->t0_ = clock.at("boot_id").get<std::string>() == boot_id()
               ? clock.at("monotonic").get<double>()
               : monotonic_seconds() - (realtime_seconds() - clock.at("realtime").get<double>());
  d->time_scale_ = d->start_.at("options").value("time_scale", 1.0);
  return d;
}

void DurableRun::follow(const Event& e, const std::vector<Action>& answered, std::size_t record) {
  auto current = [&](int job, int attempt) -> Tracked* {
    auto it = live_.find(job);
    return it != live_.end() && it->second.launch.attempt == attempt ? &it->second : nullptr;
  };
  const int gpn = scenario_->topology.gpus_per_node();
  if (const auto* p = std::get_if<JobProgress>(&e)) {
    if (Tracked* t = current(p->job, p->attempt)) t->done = std::max(t->done, p->iterations);
  } else if (const auto* c = std::get_if<CheckpointDone>(&e)) {
    if (Tracked* t = current(c->job, c->attempt)) t->checkpoint = std::max(t->checkpoint, c->iteration);
  } else if (const auto* d = std::get_if<JobCompleted>(&e)) {
    if (current(d->job, d->attempt)) live_.erase(d->job);
  } else if (const auto* st = std::get_if<JobStalled>(&e)) {
    if (Tracked* t = current(st->job, st->attempt)) t->stalled = true;
  } else if (const auto* r = std::get_if<JobResumed>(&e)) {
    if (Tracked* t = current(r->job, r->attempt)) t->stalled = false;
  } else if (const auto* n = std::get_if<NodeDown>(&e)) {
    for (auto& [job, t] : live_)
      for (int g : t.launch.gpus)
        if (n->gpu >= 0 ? g == n->gpu : g / gpn == n->node) t.stalled = true;
  }
  for (const Action& a : answered) {
    if (const auto* l = std::get_if<Launch>(&a)) live_[l->job] = {*l, record, l->start_iteration, l->start_iteration};
    if (const auto* k = std::get_if<Kill>(&a))
      if (current(k->job, k->attempt)) live_.erase(k->job);
  }
}

void DurableRun::replay(const Scenario& sc, Controller& controller,
                        const std::function<void(Seconds, const Event&)>& record) {
  scenario_ = &sc;
  const fs::path& file = journal_.file();
  std::vector<Action> answered;
  bool unchecked = false;
  std::size_t unchecked_at = 0;
  const auto& records = contents_.records;
  for (std::size_t i = 1; i < records.size(); ++i) {
    const json j = records[i].type == kActions ? json() : parse_record(records[i], file);
    const std::string where = file.string() + " record " + std::to_string(i) + " (offset " +
                              std::to_string(records[i].offset) + ")";
    if (records[i].type != kActions) {  // an answer is journaled right after its event, unless the crash came between
      if (unchecked && !answered.empty())
        throw std::runtime_error(where + ": the Controller answered record " + std::to_string(unchecked_at) +
                                 " with " + actions_digest(answered) + ", the journal with nothing");
      unchecked = false;
    }
    switch (records[i].type) {
      case kEvent: {
        auto [t, e] = decode_event(j, file, sc);
        answered = controller.handle(e, t);
        unchecked = true;
        unchecked_at = i;
        if (record) record(t, e);
        last_t_ = t;
        follow(e, answered, i);
        if (!undelivered_.empty() && same_event(undelivered_.front(), e)) undelivered_.pop_front();
        break;
      }
      case kActions:
        if (!unchecked || actions_digest(answered) != records[i].payload)
          throw std::runtime_error(where + ": the Controller of this build answered " +
                                   (unchecked ? actions_digest(answered) : std::string("nothing")) + ", the journal " +
                                   records[i].payload + " (a journal of another scenario or version?)");
        unchecked = false;
        break;
      case kFault: {
        const FaultChange c{Seconds(j.at("at").get<double>()), j.at("fault").get<std::size_t>(),
                            j.at("starts").get<bool>()};
        if (c.fault >= sc.faults.size()) throw std::runtime_error(where + ": a fault the scenario does not have");
        played_.push_back({c, i});
        undelivered_.clear();
        for (const json& caused : j.at("caused")) undelivered_.push_back(decode_event(caused, file, sc).second);
        break;
      }
      case kOutage:
        ++outage_changes_;
        break;
      case kRestart:
        restarts_.push_back(j);
        break;
      default:
        throw std::runtime_error(where + ": a record of unknown type '" + std::string(1, records[i].type) + "'");
    }
  }

  // What trained when the driver died: relaunched as the same attempt from the Controller's checkpoint.
  const int gpn = sc.topology.gpus_per_node();
  for (const auto& [job, t] : live_) {
    if (t.stalled) continue;  // its detection runs on; it is restarted as a new attempt, as it would have been
    Relaunch r{t.launch, t.done, false};
    r.launch.start_iteration = t.checkpoint;
    const auto nodes = nodes_of(r.launch, gpn);
    auto on_it = [&](int node) { return std::find(nodes.begin(), nodes.end(), node) != nodes.end(); };
    // A node death the crash kept from the Controller stalls the attempt when it is delivered: nothing to relaunch.
    bool doomed = false;
    for (const Event& e : undelivered_)
      if (const auto* d = std::get_if<NodeDown>(&e)) doomed = doomed || on_it(d->node);
    if (doomed) continue;
    for (const PlayedChange& p : played_) {
      const FaultSpec& f = sc.faults[p.change.fault];
      if (f.kind == FaultKind::Hang && p.change.starts && p.record > t.record &&
          on_it(resolve_fault_target(sc, f, p.change.fault).node))
        r.struck_by_hang = true;
    }
    known_done_[job] = t.done;
    relaunched_attempt_[job] = t.launch.attempt;
    relaunch_.push_back(std::move(r));
  }
}

std::optional<std::size_t> DurableRun::ends_in_outage(const fs::path& run_dir) {
  const JournalContents c = read_journal(run_dir / "journal");
  if (c.records.empty() || c.records.back().type != kOutage) return std::nullopt;
  const json j = json::parse(c.records.back().payload, nullptr, false);
  if (j.is_discarded() || !j.value("starts", false) || !j.contains("outage")) return std::nullopt;
  return j.at("outage").get<std::size_t>();
}

void DurableRun::attach(DriveLoop& loop, FaultPlayer& faults, std::function<void(Seconds, const Event&)> on_event,
                        bool crash_on_control_plane) {
  for (const PlayedChange& p : played_) {
    auto c = faults.take_due(p.change.at);
    if (!c || c->fault != p.change.fault || c->starts != p.change.starts)
      throw std::runtime_error(journal_.file().string() + ": the journal played fault " +
                               std::to_string(p.change.fault) + " at " + format_seconds(p.change.at) +
                               ", which is not the scenario's next fault change");
  }
  loop.skip_control_plane_changes(outage_changes_);
  for (const auto& [job, t] : live_) loop.launched(job, t.launch.attempt, t.launch.gpus);
  loop.record = [this, on_event = std::move(on_event)](Seconds t, const Event& e) {
    append_json(kEvent, observed_to_json(e, t));
    if (on_event) on_event(t, e);
  };
  loop.on_control_plane = [this, crash_on_control_plane](std::size_t outage, bool starts) {
    append_json(kOutage, {{"outage", outage}, {"starts", starts}});
    if (crash_on_control_plane && starts) {
      ::kill(::getpid(), SIGKILL);  // journaled first: the restarted driver knows the outage began
      ::pause();
    }
  };
}

void DurableRun::relaunch(WorkerPool& pool, std::deque<Event>& events, int* workers_started, Seconds now,
                          const std::function<void(const std::string&)>& log) {
  if (!resumed_) return;
  const Scenario& sc = *scenario_;
  const fs::path run_dir = journal_.file().parent_path();
  const int orphans = kill_orphans(run_dir);
  if (orphans > 0) log("resume: killed " + std::to_string(orphans) + " workers of the crashed driver still alive");
  if (contents_.cut_bytes > 0)
    log("resume: cut " + std::to_string(contents_.cut_bytes) + " bytes off the journal (" + contents_.cut_reason + ")");
  for (const Event& e : undelivered_) events.push_back(e);

  // The faults' lasting effects on what is relaunched: straggler speeds, hung nodes.
  std::set<int> hung;
  for (const PlayedChange& p : played_) {
    const FaultSpec& f = sc.faults[p.change.fault];
    const FaultTarget tg = resolve_fault_target(sc, f, p.change.fault);
    if (f.kind == FaultKind::Straggler)
      for (int gpu : tg.gpus) pool.set_gpu_speed(gpu, p.change.starts ? f.fraction : 1.0);
    if (f.kind == FaultKind::Hang && p.change.starts) hung.insert(tg.node);
  }
  for (int n : hung) pool.stop_node(n);  // no worker yet: the pool knows the node hangs, as before the crash

  const int gpn = sc.topology.gpus_per_node();
  std::int64_t redone = 0;
  double redone_gpu_hours = 0;
  json relaunched = json::array();
  for (int pass = 0; pass < 2; ++pass)
    for (const Relaunch& r : relaunch_) {
      if (r.struck_by_hang != (pass == 0)) continue;  // struck ones first, stopped again before the others start
      const Launch& l = r.launch;
      log("resume: relaunch " + sc.jobs[l.job].name + " attempt " + std::to_string(l.attempt) + " from iteration " +
          std::to_string(l.start_iteration) + " (the Controller heard of " + std::to_string(r.known_done) + ")" +
          (r.struck_by_hang ? "; its hung node stops it again" : ""));
      pool.launch(l, workers_started);
      if (r.struck_by_hang)
        for (int n : nodes_of(l, gpn))
          if (hung.count(n)) pool.stop_node(n);
      const std::int64_t lost = std::max<std::int64_t>(0, r.known_done - l.start_iteration);
      redone += lost;
      redone_gpu_hours += static_cast<double>(lost) * l.plan.predicted_iteration.value * l.gpus.size() / 3600.0;
      relaunched.push_back({{"job", sc.jobs[l.job].name},
                            {"attempt", l.attempt},
                            {"from", l.start_iteration},
                            {"heard", r.known_done}});
    }
  json rec = {{"t", now.value},
              {"last_t", last_t_.value},
              {"down_real", (now.value - last_t_.value) / time_scale_},
              {"relaunched", relaunched},
              {"redone_iterations", redone},
              {"redone_gpu_hours", redone_gpu_hours},
              {"orphans_killed", orphans},
              {"cut_bytes", contents_.cut_bytes}};
  append_json(kRestart, rec);
  restarts_.push_back(rec);
  log("resume: scenario time " + format_seconds(now) + ", last journaled event at " + format_seconds(last_t_) + "; " +
      std::to_string(relaunch_.size()) + " attempts relaunched, " + std::to_string(redone) + " iterations to redo");
}

void DurableRun::fault(const FaultChange& change, Seconds now, const std::deque<Event>& caused) {
  json events = json::array();
  for (const Event& e : caused) events.push_back(observed_to_json(e, now));
  append_json(kFault, {{"at", change.at.value}, {"t", now.value}, {"fault", change.fault}, {"starts", change.starts},
                       {"caused", events}});
}

void DurableRun::actions(const std::vector<Action>& actions) {
  if (!actions.empty()) journal_.append(kActions, actions_digest(actions), /*sync=*/false);
}

bool DurableRun::drop(const Event& event) const {
  auto relaunched = [&](int job, int attempt) {
    auto it = relaunched_attempt_.find(job);
    return it != relaunched_attempt_.end() && it->second == attempt;
  };
  if (const auto* p = std::get_if<JobProgress>(&event))
    return relaunched(p->job, p->attempt) && p->iterations <= known_done_.at(p->job);
  if (const auto* r = std::get_if<RestoredFrom>(&event)) return relaunched(r->job, r->attempt);
  return false;
}

std::map<std::string, std::string> DurableRun::report_info() const {
  std::map<std::string, std::string> info;
  if (restarts_.empty()) return info;
  info["driver_restarts"] = std::to_string(restarts_.size());
  for (std::size_t i = 0; i < restarts_.size(); ++i) {
    const json& r = restarts_[i];
    std::string what = "driver restarted at " + format_seconds(Seconds(r.at("t").get<double>())) +
                       " of scenario time; last journaled event at " +
                       format_seconds(Seconds(r.at("last_t").get<double>())) + ", so down at most " +
                       format_number(r.at("down_real").get<double>()) + " s real; relaunched";
    if (r.at("relaunched").empty()) what += " nothing";
    for (const json& a : r.at("relaunched"))
      what += " " + a.at("job").get<std::string>() + " attempt " + std::to_string(a.at("attempt").get<int>()) +
              " from iteration " + std::to_string(a.at("from").get<std::int64_t>()) + " (heard " +
              std::to_string(a.at("heard").get<std::int64_t>()) + ")";
    what += "; " + std::to_string(r.at("redone_iterations").get<std::int64_t>()) + " iterations (" +
            format_number(r.at("redone_gpu_hours").get<double>()) + " GPU-h) redone";
    if (r.at("orphans_killed").get<int>() > 0)
      what += "; " + std::to_string(r.at("orphans_killed").get<int>()) + " orphaned workers killed";
    if (r.at("cut_bytes").get<std::uint64_t>() > 0)
      what += "; journal tail of " + std::to_string(r.at("cut_bytes").get<std::uint64_t>()) + " bytes cut";
    info["driver_restart_" + std::to_string(i + 1)] = what;
  }
  return info;
}

}  // namespace tt::real
