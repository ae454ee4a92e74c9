#include "reports/events.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/io/input_error.hpp"
#include "tests/e2e/cli_support.hpp"
#include "tests/reports/record_fixture.hpp"

using tt::EventFilter;
using tt::Level;
using tt::LogEvent;
using tt::Seconds;

namespace {

std::vector<LogEvent> sample_events() { return tt::log_events(tt::testing::sample_record()); }

std::vector<std::string> kinds(const std::vector<LogEvent>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e.kind + "@" + std::to_string(static_cast<int>(e.t.value)));
  return out;
}

std::string error_of(const std::string& text) {
  try {
    tt::read_events(text, "run/events.jsonl");
  } catch (const tt::InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("events: one JSON line per decision, keys in a fixed order", "[reports]") {
  std::string text = tt::events_jsonl(tt::testing::sample_record());
  CHECK(std::count(text.begin(), text.end(), '\n') == 11);
  CHECK_THAT(text, Catch::StartsWith(R"({"t_s":0.0,"level":"info","kind":"submit","job":"train-a","nodes":[],)"
                                     R"("message":"queue pretrain, priority 10, 8 GPUs"})"
                                     "\n"));
  CHECK_THAT(text, Catch::Contains(R"({"t_s":2400.0,"level":"warn","kind":"node_down","job":null,"nodes":["n1"],)"
                                   R"("message":"node n1 crash"})"));
  CHECK_THAT(text, Catch::Contains(R"("level":"error","kind":"detect","job":"train-a")"));
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    CHECK(nlohmann::json::parse(text.substr(start, end - start)).size() == 6);
}

TEST_CASE("events: levels follow from the kind", "[reports]") {
  CHECK(tt::event_level("detect") == Level::Error);
  CHECK(tt::event_level("abandon") == Level::Error);
  for (const char* k : {"node_down", "link_down", "kill", "requeue", "preempt"})
    CHECK(tt::event_level(k) == Level::Warn);
  for (const char* k : {"submit", "launch", "pending", "complete", "node_up", "link_up", "something_new"})
    CHECK(tt::event_level(k) == Level::Info);
  CHECK(tt::parse_level("warn") == Level::Warn);
  CHECK_FALSE(tt::parse_level("WARN").has_value());
  CHECK_FALSE(tt::parse_level("debug").has_value());
}

TEST_CASE("events: the log reads back to the same events", "[reports]") {
  tt::RunRecord r = tt::testing::sample_record();
  r.decisions.push_back(tt::testing::decision(6000.125, "abandon", "odd \"job\"\n\\name", {"n1", "n2"},
                                              "tab\there, caf\xC3\xA9, emoji \xF0\x9F\x9A\x80"));
  auto events = tt::log_events(r);
  auto back = tt::read_events(tt::events_jsonl(r), "events.jsonl");
  REQUIRE(back.size() == events.size());
  CHECK(back == events);
  CHECK(back.back().level == Level::Error);
  CHECK(back.back().t.value == 6000.125);
  CHECK(back[4].job.empty());                                                  // node_down: a cluster event
  CHECK(tt::read_events("\n" + tt::events_jsonl(r) + "\n\n", "x") == events);  // blank lines are skipped
}

TEST_CASE("events: invalid UTF-8 in a record becomes U+FFFD, not an exception", "[reports]") {
  tt::RunRecord r;
  r.decisions.push_back(tt::testing::decision(1, "submit", "bad\xFF", {}, "x"));
  auto back = tt::read_events(tt::events_jsonl(r), "events.jsonl");
  CHECK(back.at(0).job == "bad\xEF\xBF\xBD");
}

TEST_CASE("events: filters by job, level, time and kind", "[reports]") {
  auto events = sample_events();
  auto pick = [&](EventFilter f) { return kinds(tt::filter_events(events, f)); };
  using V = std::vector<std::string>;

  auto jobs = [](std::vector<std::string> names) {
    EventFilter f;
    f.jobs = std::move(names);
    return f;
  };
  CHECK(pick(EventFilter{}).size() == events.size());
  CHECK(pick(jobs({"eval-b"})) == V{"submit@600", "launch@600", "complete@2500"});
  CHECK(pick(jobs({"eval-b", "nobody"})).size() == 3);
  CHECK(pick(jobs({"nobody"})).empty());

  EventFilter warn;
  warn.min_level = Level::Warn;
  CHECK(pick(warn) == V{"node_down@2400", "detect@2460", "requeue@2460"});
  warn.min_level = Level::Error;
  CHECK(pick(warn) == V{"detect@2460"});

  EventFilter window;  // both bounds inclusive
  window.since = Seconds(2400);
  window.until = Seconds(2500);
  CHECK(pick(window) == V{"node_down@2400", "detect@2460", "requeue@2460", "complete@2500"});
  window.until.reset();
  window.since = Seconds(2501);
  CHECK(pick(window) == V{"launch@2640", "node_up@6000", "complete@6000"});

  EventFilter kind;
  kind.kinds = {"launch", "node_up"};
  CHECK(pick(kind) == V{"launch@0", "launch@600", "launch@2640", "node_up@6000"});

  EventFilter all;  // every condition at once
  all.jobs = {"train-a"};
  all.min_level = Level::Warn;
  all.since = Seconds(2460);
  all.kinds = {"requeue"};
  CHECK(pick(all) == V{"requeue@2460"});
}

TEST_CASE("events: a table aligned in columns", "[reports]") {
  std::string table = tt::events_table(sample_events());
  CHECK_THAT(table,
             Catch::StartsWith("0:00:00.000  INFO   submit     train-a  -   queue pretrain, priority 10, 8 GPUs\n"));
  CHECK_THAT(table, Catch::Contains("0:40:00.000  WARN   node_down  -        n1  node n1 crash\n"));
  CHECK_THAT(table, Catch::Contains("0:41:00.000  ERROR  detect     train-a  n1  node n1 crash;"));
  CHECK_THAT(table, Catch::EndsWith("1:40:00.000  INFO   complete   train-a  n2  500 iterations\n"));

  LogEvent wide{Seconds(400000.5), Level::Warn, "kind", "j\r\nk", {"n1", "n2", "n3", "n4", "n5"}, "two\nlines"};
  std::string line = tt::events_table({wide});
  CHECK(line == "111:06:40.500  WARN  kind  j  k  n1,n2,n3 +2  two lines\n");
  CHECK(tt::events_table({}).empty());
}

TEST_CASE("events: a corrupt log names the file, the line and what was expected", "[reports]") {
  std::string good = tt::events_jsonl(tt::testing::sample_record());
  CHECK_THAT(error_of(good + "{\"t_s\": 1,\n"),
             Catch::StartsWith("run/events.jsonl:12: at /: one JSON object per line"));
  CHECK_THAT(error_of("[1, 2]\n"), Catch::Contains("run/events.jsonl:1: at /: a JSON object, found array"));
  const std::string rest = R"("kind":"submit","job":null,"nodes":[],"message":"m"})";
  CHECK_THAT(error_of(R"({"t_s":"soon","level":"info",)" + rest),
             Catch::Contains("run/events.jsonl:1: at /t_s: a finite number of seconds, found \"soon\""));
  CHECK_THAT(error_of(R"({"level":"info",)" + rest), Catch::Contains("at /t_s: a number of seconds, found nothing"));
  CHECK_THAT(error_of(R"({"t_s":1,"level":"loud",)" + rest),
             Catch::Contains("at /level: info, warn or error, found \"loud\""));
  CHECK_THAT(error_of(R"({"t_s":1,"level":"info","kind":"k","job":3,"nodes":[],"message":"m"})"),
             Catch::Contains("at /job: a string or null, found number"));
  CHECK_THAT(error_of(R"({"t_s":1,"level":"info","kind":"k","job":null,"nodes":["a",2],"message":"m"})"),
             Catch::Contains("at /nodes/1: a node name, found number"));
  CHECK_THAT(error_of(R"({"t_s":1,"level":"info","kind":"k","job":null,"nodes":[]})"),
             Catch::Contains("at /message: a string, found nothing"));
  CHECK(error_of(R"({"t_s":1,"level":"info","kind":"k","job":null,"nodes":[],"message":"m","later":1})") == "no error");
}

TEST_CASE("events: read_events_file takes a report directory or the file, and names a missing one", "[reports]") {
  auto dir = tt::testing::scratch_dir("events-file");
  std::ofstream(dir / "events.jsonl") << tt::events_jsonl(tt::testing::sample_record());
  CHECK(tt::read_events_file(dir.string()).size() == 11);
  CHECK(tt::read_events_file((dir / "events.jsonl").string()).size() == 11);
  auto empty = tt::testing::scratch_dir("events-file-missing");
  CHECK_THROWS_WITH(tt::read_events_file(empty.string()),
                    Catch::Contains((empty / "events.jsonl").string()) && Catch::Contains("does not exist"));
}

TEST_CASE("events: clock format", "[reports]") {
  CHECK(tt::format_clock(Seconds(0)) == "0:00:00.000");
  CHECK(tt::format_clock(Seconds(5400)) == "1:30:00.000");
  CHECK(tt::format_clock(Seconds(59.9996)) == "0:01:00.000");
  CHECK(tt::format_clock(Seconds(-1.5)) == "-0:00:01.500");
}
