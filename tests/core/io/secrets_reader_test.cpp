#include "core/io/secrets_reader.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "scenario_reader_support.hpp"

using namespace tt;
using namespace tt::testing;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  auto dir = fs::path(TT_BINARY_DIR) / "test-out" / "secrets" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

fs::path secret_file(const fs::path& dir, const std::string& name, const std::string& value, mode_t mode) {
  const fs::path p = dir / name;
  std::ofstream(p) << value;
  REQUIRE(::chmod(p.c_str(), mode) == 0);
  return p;
}

struct Read {
  Scenario scenario;
  std::vector<SecretSpec> secrets;
};

Read with_secrets(const json& secrets, const std::string& file = "bad.json") {
  json doc = base();
  doc["secrets"] = secrets;
  Read r{read_scenario(doc, file), {}};
  r.secrets = read_scenario_secrets(doc, r.scenario);
  return r;
}

}  // namespace

TEST_CASE("secrets: named by reference, each with the jobs that receive it", "[unit][io]") {
  const std::vector<SecretSpec> secrets = with_secrets(json::parse(R"([
      {"name": "HF_TOKEN", "from_env": "RELIAB_HF", "jobs": ["finetune-8b", "pretrain-70b"]},
      {"name": "WANDB_API_KEY", "from_file": "keys/wandb", "jobs": ["pretrain-70b"]}])"),
                                                     "/etc/tt/scenario.json").secrets;
  REQUIRE(secrets.size() == 2);
  CHECK(secrets[0].name == "HF_TOKEN");
  CHECK(secrets[0].from_env == "RELIAB_HF");
  CHECK(secrets[0].jobs == std::vector<int>{1, 0});
  CHECK(secrets[1].from_file == "/etc/tt/keys/wandb");  // relative to the scenario's folder
  CHECK(secrets[1].pointer == "/secrets/1");
  CHECK(read_scenario_secrets(base(), read_scenario(base(), "ok.json")).empty());
}

TEST_CASE("secrets: a value in the scenario and malformed references are refused", "[unit][io]") {
  check_bad_cases({
      {"a value written in the scenario",
       R"([{"op": "add", "path": "/secrets", "value": [{"name": "T", "value": "hunter2", "jobs": ["finetune-8b"]}]}])",
       "/secrets/0/value", "by reference"},
      {"both sources",
       R"([{"op": "add", "path": "/secrets", "value": [{"name": "T", "from_env": "A", "from_file": "/x",
           "jobs": ["finetune-8b"]}]}])",
       "/secrets/0", "exactly one of"},
      {"no source",
       R"([{"op": "add", "path": "/secrets", "value": [{"name": "T", "jobs": ["finetune-8b"]}]}])",
       "/secrets/0", "exactly one of"},
      {"not a variable name",
       R"([{"op": "add", "path": "/secrets", "value": [{"name": "1-T", "from_env": "A", "jobs": ["finetune-8b"]}]}])",
       "/secrets/0/name", "environment variable name"},
      {"a variable the worker relies on",
       R"([{"op": "add", "path": "/secrets", "value": [{"name": "LD_PRELOAD", "from_env": "A",
           "jobs": ["finetune-8b"]}]}])",
       "/secrets/0/name", "does not rely on"},
      {"an unknown job",
       R"([{"op": "add", "path": "/secrets", "value": [{"name": "T", "from_env": "A", "jobs": ["finetune-8c"]}]}])",
       "/secrets/0/jobs/0", "did you mean \"finetune-8b\""},
      {"one variable twice for a job",
       R"([{"op": "add", "path": "/secrets", "value": [{"name": "T", "from_env": "A", "jobs": ["finetune-8b"]},
           {"name": "T", "from_env": "B", "jobs": ["finetune-8b"]}]}])",
       "/secrets/1/jobs/0", "already receives"},
      {"no job", R"([{"op": "add", "path": "/secrets", "value": [{"name": "T", "from_env": "A", "jobs": []}]}])",
       "/secrets/0/jobs", ""},
  });
}

TEST_CASE("secrets: values come from the environment or an owner-only file, else exit 2", "[unit][io]") {
  const fs::path dir = scratch("resolve");
  const fs::path ok = secret_file(dir, "ok", "s3cr3t-file\n", 0600);
  const fs::path open = secret_file(dir, "open", "s3cr3t-open", 0644);
  const fs::path group = secret_file(dir, "group", "s3cr3t-group", 0640);
  const fs::path empty = secret_file(dir, "empty", "", 0600);
  const fs::path link = dir / "link";
  fs::create_symlink(ok, link);
  ::setenv("RELIAB_TEST_SECRET", "s3cr3t-env", 1);
  ::unsetenv("RELIAB_TEST_UNSET");

  auto resolved = [&](const json& secret) {
    const Read r = with_secrets(json::array({secret}));
    return resolve_secrets(r.scenario, r.secrets);
  };
  auto refused = [&](const json& secret, const std::string& pointer, const std::string& says) {
    try {
      resolved(secret);
      FAIL("resolved");
    } catch (const InputError& e) {
      CHECK(e.pointer() == pointer);
      CHECK_THAT(e.expected(), Catch::Contains(says));
    }
  };
  const auto env = resolved({{"name", "T"}, {"from_env", "RELIAB_TEST_SECRET"}, {"jobs", {"finetune-8b"}}});
  REQUIRE(env.size() == 2);
  CHECK(env[0].empty());
  CHECK(env[1] == JobSecrets{{"T", "s3cr3t-env"}});
  const auto file = resolved({{"name", "T"}, {"from_file", ok.string()}, {"jobs", {"pretrain-70b"}}});
  CHECK(file[0] == JobSecrets{{"T", "s3cr3t-file"}});  // one trailing newline dropped

  refused({{"name", "T"}, {"from_env", "RELIAB_TEST_UNSET"}, {"jobs", {"finetune-8b"}}}, "/secrets/0/from_env",
          "RELIAB_TEST_UNSET set");
  refused({{"name", "T"}, {"from_file", open.string()}, {"jobs", {"finetune-8b"}}}, "/secrets/0/from_file",
          "mode 0644");
  refused({{"name", "T"}, {"from_file", group.string()}, {"jobs", {"finetune-8b"}}}, "/secrets/0/from_file",
          "mode 0640");
  refused({{"name", "T"}, {"from_file", link.string()}, {"jobs", {"finetune-8b"}}}, "/secrets/0/from_file",
          "not a symbolic link");
  refused({{"name", "T"}, {"from_file", empty.string()}, {"jobs", {"finetune-8b"}}}, "/secrets/0/from_file",
          "empty file");
  refused({{"name", "T"}, {"from_file", (dir / "absent").string()}, {"jobs", {"finetune-8b"}}},
          "/secrets/0/from_file", "readable regular file");
  refused({{"name", "T"}, {"from_file", dir.string()}, {"jobs", {"finetune-8b"}}}, "/secrets/0/from_file",
          "regular file");
}

TEST_CASE("secrets: a worker's environment holds its own job's secrets and no other's", "[unit][io]") {
  std::vector<SecretSpec> all(2);
  all[0].name = "HF_TOKEN";
  all[0].from_env = "DRIVER_HF";
  all[1].name = "WANDB_API_KEY";
  all[1].from_file = "/k";
  const std::vector<std::string> parent = {"PATH=/usr/bin", "DRIVER_HF=hf-value", "WANDB_API_KEY=stale",
                                           "HOME=/root", "HF_TOKEN=leaked"};
  CHECK(worker_environment(parent, all, {{"WANDB_API_KEY", "wandb-value"}}) ==
        std::vector<std::string>{"PATH=/usr/bin", "HOME=/root", "WANDB_API_KEY=wandb-value"});
  CHECK(worker_environment(parent, all, {}) == std::vector<std::string>{"PATH=/usr/bin", "HOME=/root"});
}
