// A secret a scenario names by reference (docs/reliability.md, Secrets): where its value comes from (an environment
// variable of the driver, or a file only its owner can read) and which jobs' workers receive it, under which
// environment variable. The value itself is never part of a Scenario: it is read at launch (core/io/secrets_reader).
#pragma once

#include <string>
#include <vector>

namespace tt {

struct SecretSpec {
  std::string name;       // the environment variable the job's workers see (HF_TOKEN)
  std::string from_env;   // the driver's environment variable holding the value, or
  std::string from_file;  // a file holding it (absolute; relative paths are resolved against the scenario's folder)
  std::vector<int> jobs;  // indices into Scenario::jobs
  std::string pointer;    // "/secrets/0", for messages when the value is read
};

}  // namespace tt
