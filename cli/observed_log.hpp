// observed.jsonl: the events a run's driver handed the Controller (core/io/observed_events.hpp), written as they
// happen so that a run that dies leaves what it saw. `traintwin real` always writes it; `traintwin run --observed`
// on request (a fleet month hands the Controller millions of events).
#pragma once

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "core/control/events.hpp"

namespace tt::cli {

class ObservedWriter {
 public:
  explicit ObservedWriter(const std::filesystem::path& file);
  std::function<void(Seconds, const Event&)> recorder();
  void finish(Seconds end);
  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
  std::ofstream out_;
};

}  // namespace tt::cli
