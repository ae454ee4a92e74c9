#include "real/checkpoint.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <sstream>

#include "real/checksum.hpp"
#include "real/sys.hpp"

namespace tt::real {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kManifestHeader = "traintwin checkpoint manifest v1\n";
constexpr std::string_view kIterPrefix = "iter-";

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08" PRIx32, v);
  return buf;
}

struct Manifest {
  std::int64_t iteration = 0;
  int rank = -1;
  int world = 0;
  std::string file;
  std::uint64_t bytes = 0;
  std::uint32_t crc = 0;
};

std::string render_manifest(const Manifest& m) {
  std::string body(kManifestHeader);
  body += "iteration " + std::to_string(m.iteration) + "\n";
  body += "rank " + std::to_string(m.rank) + "\n";
  body += "world " + std::to_string(m.world) + "\n";
  body += "file " + m.file + "\n";
  body += "bytes " + std::to_string(m.bytes) + "\n";
  body += "crc32c " + hex32(m.crc) + "\n";
  return body + "manifest-crc32c " + hex32(crc32c(body)) + "\n";
}

template <class T>
bool parse_number(std::string_view s, T& out, int base = 10) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && p == s.data() + s.size();
}

// Parses a manifest; returns an empty string or what is wrong with it.
std::string parse_manifest(std::string_view text, Manifest& m) {
  const std::string_view trailer_key = "manifest-crc32c ";
  auto at = text.rfind(trailer_key);
  if (text.substr(0, kManifestHeader.size()) != kManifestHeader || at == std::string_view::npos)
    return "not a traintwin checkpoint manifest";
  std::string_view body = text.substr(0, at);
  std::string_view trailer = text.substr(at + trailer_key.size());
  if (!trailer.empty() && trailer.back() == '\n') trailer.remove_suffix(1);
  std::uint32_t own = 0;
  if (!parse_number(trailer, own, 16)) return "manifest checksum line is malformed";
  if (crc32c(body) != own) return "manifest content does not match its own CRC-32C (corrupt manifest)";

  std::map<std::string, std::string, std::less<>> kv;
  std::istringstream in{std::string(body.substr(kManifestHeader.size()))};
  std::string line;
  while (std::getline(in, line)) {
    auto sp = line.find(' ');
    if (sp == std::string::npos) return "manifest line \"" + line + "\" is malformed";
    kv[line.substr(0, sp)] = line.substr(sp + 1);
  }
  bool ok = kv.count("file") && parse_number(kv["iteration"], m.iteration) && parse_number(kv["rank"], m.rank) &&
            parse_number(kv["world"], m.world) && parse_number(kv["bytes"], m.bytes) &&
            parse_number(kv["crc32c"], m.crc, 16);
  if (!ok) return "manifest is missing a field or has a malformed one";
  m.file = kv["file"];
  return "";
}

bool path_exists(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) == 0) return true;
  if (errno == ENOENT || errno == ENOTDIR) return false;
  throw_errno("stat " + p.string());
}

// Checks one rank's manifest and state file; on success fills `state` when it is not null.
std::string check_rank(const fs::path& dir, std::int64_t iteration, int rank, int world, std::string* state) {
  const fs::path mpath = dir / manifest_file_name(rank);
  if (!path_exists(mpath)) return mpath.string() + ": missing (partial checkpoint)";
  Manifest m;
  if (std::string bad = parse_manifest(read_whole_file(mpath), m); !bad.empty()) return mpath.string() + ": " + bad;
  if (m.iteration != iteration || m.rank != rank || m.world != world || m.file != state_file_name(rank))
    return mpath.string() + ": describes iteration " + std::to_string(m.iteration) + ", rank " +
           std::to_string(m.rank) + " of " + std::to_string(m.world) + ", file " + m.file + "; expected iteration " +
           std::to_string(iteration) + ", rank " + std::to_string(rank) + " of " + std::to_string(world);
  const fs::path spath = dir / m.file;
  if (!path_exists(spath)) return spath.string() + ": missing, though its manifest is in place";
  std::string data = read_whole_file(spath);
  if (data.size() != m.bytes)
    return spath.string() + ": " + std::to_string(data.size()) + " bytes, its manifest says " +
           std::to_string(m.bytes) + " (truncated or overwritten)";
  if (std::uint32_t crc = crc32c(data); crc != m.crc)
    return spath.string() + ": CRC-32C " + hex32(crc) + ", its manifest says " + hex32(m.crc) + " (corrupt)";
  if (state) *state = std::move(data);
  return "";
}

}  // namespace

fs::path checkpoints_root(const fs::path& job_dir) { return job_dir / "checkpoints"; }

fs::path checkpoint_path(const fs::path& job_dir, std::int64_t iteration) {
  char name[32];
  std::snprintf(name, sizeof name, "iter-%012" PRId64, iteration);
  return checkpoints_root(job_dir) / name;
}

std::string state_file_name(int rank) {
  char name[32];
  std::snprintf(name, sizeof name, "rank-%05d.state", rank);
  return name;
}

std::string manifest_file_name(int rank) {
  char name[32];
  std::snprintf(name, sizeof name, "rank-%05d.manifest", rank);
  return name;
}

void write_rank_checkpoint(const fs::path& job_dir, std::int64_t iteration, int rank, int world,
                           std::string_view state) {
  const fs::path dir = checkpoint_path(job_dir, iteration);
  make_private_dirs(dir);
  Manifest m{iteration, rank, world, state_file_name(rank), state.size(), crc32c(state)};
  write_file_durably(dir / m.file, state);
  write_file_durably(dir / manifest_file_name(rank), render_manifest(m));
}

bool checkpoint_complete(const fs::path& job_dir, std::int64_t iteration, int world) {
  const fs::path dir = checkpoint_path(job_dir, iteration);
  for (int r = 0; r < world; ++r)
    if (!path_exists(dir / manifest_file_name(r))) return false;
  return true;
}

std::string verify_checkpoint(const fs::path& job_dir, std::int64_t iteration, int world) {
  const fs::path dir = checkpoint_path(job_dir, iteration);
  if (!path_exists(dir)) return dir.string() + ": no such checkpoint";
  for (int r = 0; r < world; ++r)
    if (std::string bad = check_rank(dir, iteration, r, world, nullptr); !bad.empty()) return bad;
  return "";
}

std::string read_rank_state(const fs::path& job_dir, std::int64_t iteration, int rank, int world) {
  std::string state;
  std::string bad = check_rank(checkpoint_path(job_dir, iteration), iteration, rank, world, &state);
  if (!bad.empty())
    throw CheckpointError("checkpoint after iteration " + std::to_string(iteration) + " refused: " + bad);
  return state;
}

std::vector<std::int64_t> list_checkpoints(const fs::path& job_dir) {
  std::vector<std::int64_t> out;
  const fs::path root = checkpoints_root(job_dir);
  if (!path_exists(root)) return out;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    std::int64_t n = 0;
    if (name.rfind(kIterPrefix, 0) == 0 && parse_number(std::string_view(name).substr(kIterPrefix.size()), n) &&
        it->is_directory())
      out.push_back(n);
  }
  if (ec) throw SysError("list directory " + root.string(), ec.value());
  std::sort(out.begin(), out.end());
  return out;
}

RestorePoint choose_restore(const fs::path& job_dir, int world, std::int64_t at_most) {
  RestorePoint rp;
  std::vector<std::int64_t> all = list_checkpoints(job_dir);
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (*it > at_most) continue;
    std::string bad = verify_checkpoint(job_dir, *it, world);
    if (bad.empty()) {
      rp.iteration = *it;
      return rp;
    }
    rp.refused.push_back("checkpoint after iteration " + std::to_string(*it) + " refused: " + bad);
  }
  return rp;
}

namespace {
void remove_dir(const fs::path& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) throw SysError("remove " + dir.string(), ec.value());
}
}  // namespace

void remove_checkpoints_after(const fs::path& job_dir, std::int64_t iteration) {
  for (std::int64_t n : list_checkpoints(job_dir))
    if (n > iteration) remove_dir(checkpoint_path(job_dir, n));
}

void flip_byte_in_middle(const fs::path& file) {
  Fd fd(::open(file.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd) throw_errno("open " + file.string() + " to corrupt it");
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw_errno("stat " + file.string());
  if (st.st_size == 0) throw CheckpointError(file.string() + " is empty: no byte to corrupt");
  const off_t at = st.st_size / 2;
  unsigned char byte = 0;
  if (::pread(fd.get(), &byte, 1, at) != 1) throw_errno("read " + file.string());
  byte = static_cast<unsigned char>(~byte);
  if (::pwrite(fd.get(), &byte, 1, at) != 1) throw_errno("write " + file.string());
  if (::fsync(fd.get()) != 0) throw_errno("fsync " + file.string());
}

void prune_checkpoints(const fs::path& job_dir, int world, int keep) {
  std::vector<std::int64_t> all = list_checkpoints(job_dir);
  int complete = 0;
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (complete >= keep) {
      remove_dir(checkpoint_path(job_dir, *it));
    } else if (checkpoint_complete(job_dir, *it, world)) {
      ++complete;
    }
  }
}

}  // namespace tt::real
