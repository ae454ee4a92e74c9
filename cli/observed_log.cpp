#include "cli/observed_log.hpp"

#include <stdexcept>

#include "core/io/observed_events.hpp"

namespace tt::cli {

ObservedWriter::ObservedWriter(const std::filesystem::path& file) : file_(file) {
  std::filesystem::create_directories(file.parent_path());
  out_.open(file, std::ios::trunc);
  if (!out_) throw std::runtime_error("cannot write " + file.string());
}

std::function<void(Seconds, const Event&)> ObservedWriter::recorder() {
  return [this](Seconds t, const Event& e) { out_ << observed_to_json(e, t).dump() << '\n'; };
}

void ObservedWriter::finish(Seconds end) {
  out_ << finish_to_json(end).dump() << '\n';
  out_.flush();
  if (!out_) throw std::runtime_error("cannot write " + file_.string());
}

}  // namespace tt::cli
