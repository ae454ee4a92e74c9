#include "core/io/secrets_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include "core/io/reader_support.hpp"

namespace tt {
namespace {

bool valid_env_name(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Variables a secret may not replace in a worker: the loader's and the shell's, and the ones the twin itself uses.
bool reserved_env_name(const std::string& s) {
  return s == "PATH" || s == "HOME" || s == "USER" || s.rfind("LD_", 0) == 0 || s.rfind("TT_", 0) == 0 ||
         s.rfind("NCCL_", 0) == 0 || s.rfind("ASAN_", 0) == 0 || s.rfind("UBSAN_", 0) == 0;
}

std::string env_name(JsonObject& o, const std::string& key) {
  std::string v = o.str(key);
  if (!valid_env_name(v))
    o.fail(key, "an environment variable name (letters, digits and _, not starting with a digit), found " +
                    reader::in_quotes(v));
  return v;
}

std::string mode_text(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0%03o", static_cast<unsigned>(mode & 07777));
  return buf;
}

std::string strip_one_newline(std::string v) {
  if (!v.empty() && v.back() == '\n') v.pop_back();
  if (!v.empty() && v.back() == '\r') v.pop_back();
  return v;
}

std::string read_secret_file(const Scenario& sc, const SecretSpec& s) {
  const std::string ptr = s.pointer + "/from_file";
  const int fd = ::open(s.from_file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    throw InputError(sc.source_file, ptr,
                     "a readable regular file (not a symbolic link) holding the secret; " + s.from_file + ": " +
                         std::strerror(errno));
  struct stat st {};
  std::string value;
  std::string refused;
  if (::fstat(fd, &st) != 0) {
    refused = std::string("fstat: ") + std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    refused = "a regular file";
  } else if ((st.st_mode & 077) != 0) {
    refused = "mode " + mode_text(st.st_mode) + " (group or others may read or write it)";
  } else if (st.st_uid != ::geteuid()) {
    refused = "owner uid " + std::to_string(st.st_uid) + ", not the driver's (" + std::to_string(::geteuid()) + ")";
  } else {
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0 && value.size() < (1u << 20)) value.append(buf, static_cast<std::size_t>(n));
    if (n < 0) refused = std::string("read: ") + std::strerror(errno);
    if (value.size() >= (1u << 20)) refused = "a secret under 1 MiB";
  }
  ::close(fd);
  if (!refused.empty())
    throw InputError(sc.source_file, ptr,
                     "a file only its owner can read or write (mode 0600 or 0400, owned by the driver's user); " +
                         s.from_file + " has " + refused);
  return strip_one_newline(std::move(value));
}

}  // namespace

std::vector<SecretSpec> read_secrets(JsonObject& root, const std::vector<JobSpec>& jobs) {
  std::vector<SecretSpec> out;
  if (!reader::present(root, "secrets")) return out;
  std::vector<std::string> job_names;
  for (const auto& j : jobs) job_names.push_back(j.name);
  std::set<std::pair<int, std::string>> delivered;  // (job, name): one value per variable per job
  for (const auto& [value, ptr] : root.array("secrets")) {
    if (value->is_object() && value->contains("value"))
      throw InputError(root.file(), ptr + "/value",
                       "no value in the scenario: a secret is named by reference (\"from_env\": a variable of the "
                       "driver's environment, or \"from_file\": a file of mode 0600)");
    auto o = reader::open(*value, root.file(), ptr, {"name", "from_env", "from_file", "jobs"});
    SecretSpec s;
    s.pointer = ptr;
    s.name = env_name(o, "name");
    if (reserved_env_name(s.name))
      o.fail("name", "a variable the worker does not rely on (not PATH, HOME, USER, LD_*, TT_*, NCCL_*, ASAN_* or "
                     "UBSAN_*), found " + reader::in_quotes(s.name));
    if (o.has("from_env") == o.has("from_file"))
      o.fail_here(std::string("exactly one of \"from_env\" or \"from_file\", found ") +
                  (o.has("from_env") ? "both" : "neither"));
    if (o.has("from_env")) s.from_env = env_name(o, "from_env");
    if (o.has("from_file")) {
      std::string path = o.str("from_file");
      if (path.empty()) o.fail("from_file", "a file path, found an empty string");
      std::filesystem::path p(path);
      if (p.is_relative()) p = std::filesystem::path(root.file()).parent_path() / p;
      s.from_file = p.lexically_normal().string();
    }
    for (const auto& [job, job_ptr] : o.array("jobs")) {
      if (!job->is_string()) throw InputError(root.file(), job_ptr, "a job name, found " + std::string(job->type_name()));
      const std::string name = job->get<std::string>();
      const auto it = std::find(job_names.begin(), job_names.end(), name);
      if (it == job_names.end())
        throw InputError(root.file(), job_ptr,
                         "the name of a job in \"jobs\" (" + reader::list_names(job_names) + "); " +
                             reader::in_quotes(name) + " is not one" + reader::suggestion(name, job_names));
      const int index = static_cast<int>(it - job_names.begin());
      if (!delivered.insert({index, s.name}).second)
        throw InputError(root.file(), job_ptr,
                         "one secret per variable and job; job " + reader::in_quotes(name) + " already receives " +
                             reader::in_quotes(s.name));
      s.jobs.push_back(index);
    }
    o.finish();
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<SecretSpec> read_scenario_secrets(const nlohmann::json& doc, const Scenario& scenario) {
  if (!doc.is_object() || !doc.contains("secrets")) return {};
  JsonObject root(doc, scenario.source_file, "");
  return read_secrets(root, scenario.jobs);
}

std::vector<JobSecrets> resolve_secrets(const Scenario& sc, const std::vector<SecretSpec>& secrets) {
  std::vector<JobSecrets> out(sc.jobs.size());
  for (const auto& s : secrets) {
    std::string value;
    if (!s.from_env.empty()) {
      const char* v = std::getenv(s.from_env.c_str());
      if (!v || !*v)
        throw InputError(sc.source_file, s.pointer + "/from_env",
                         "the variable " + s.from_env + " set (not empty) in the driver's environment");
      value = v;
    } else {
      value = read_secret_file(sc, s);
      if (value.empty()) throw InputError(sc.source_file, s.pointer + "/from_file", "a secret, found an empty file");
    }
    for (int j : s.jobs) out[static_cast<std::size_t>(j)].emplace_back(s.name, value);
  }
  return out;
}

std::vector<std::string> worker_environment(const std::vector<std::string>& parent, const std::vector<SecretSpec>& all,
                                            const JobSecrets& own) {
  std::set<std::string> hidden;
  for (const auto& s : all) {
    hidden.insert(s.name);
    if (!s.from_env.empty()) hidden.insert(s.from_env);
  }
  std::vector<std::string> env;
  for (const auto& entry : parent) {
    const auto eq = entry.find('=');
    if (hidden.count(entry.substr(0, eq))) continue;
    env.push_back(entry);
  }
  for (const auto& [name, value] : own) env.push_back(name + "=" + value);
  return env;
}

}  // namespace tt
