#include "core/model/comm.hpp"

#include <cctype>

namespace tt {

namespace {

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

template <class E, int N>
std::optional<E> parse_enum(std::string_view s, bool case_insensitive) {
  for (int i = 0; i < N; ++i) {
    const char* name = to_string(static_cast<E>(i));
    if (case_insensitive ? iequal(s, name) : s == name) return static_cast<E>(i);
  }
  return std::nullopt;
}

}  // namespace

const char* to_string(Collective c) {
  switch (c) {
    case Collective::AllReduce: return "all_reduce";
    case Collective::ReduceScatter: return "reduce_scatter";
    case Collective::AllGather: return "all_gather";
    case Collective::Broadcast: return "broadcast";
    case Collective::Reduce: return "reduce";
    case Collective::AllToAll: return "alltoall";
    case Collective::SendRecv: return "sendrecv";
  }
  return "?";
}

const char* to_string(Algorithm a) {
  switch (a) {
    case Algorithm::Ring: return "ring";
    case Algorithm::Tree: return "tree";
    case Algorithm::Nvls: return "nvls";
    case Algorithm::NvlsTree: return "nvls_tree";
    case Algorithm::Hierarchical: return "hierarchical";
    case Algorithm::P2p: return "p2p";
  }
  return "?";
}

const char* to_string(Protocol p) {
  switch (p) {
    case Protocol::LL: return "LL";
    case Protocol::LL128: return "LL128";
    case Protocol::Simple: return "Simple";
  }
  return "?";
}

const char* to_string(Medium m) {
  switch (m) {
    case Medium::NvLink: return "nvlink";
    case Medium::Pci: return "pci";
    case Medium::Net: return "net";
  }
  return "?";
}

std::optional<Collective> parse_collective(std::string_view s) {
  return parse_enum<Collective, kCollectives>(s, false);
}
std::optional<Algorithm> parse_algorithm(std::string_view s) {
  if (iequal(s, "nvlstree")) return Algorithm::NvlsTree;  // as NCCL_ALGO spells it
  return parse_enum<Algorithm, kAlgorithms>(s, true);
}
std::optional<Protocol> parse_protocol(std::string_view s) { return parse_enum<Protocol, kProtocols>(s, true); }
std::optional<Medium> parse_medium(std::string_view s) { return parse_enum<Medium, kMedia>(s, false); }

SizeBand size_band(Bytes size) {
  if (size.value <= 65536) return SizeBand::Small;
  if (size.value < 16777216) return SizeBand::Medium;
  return SizeBand::Large;
}

const char* to_string(SizeBand b) {
  switch (b) {
    case SizeBand::Small: return "<=64KiB";
    case SizeBand::Medium: return "64KiB-16MiB";
    case SizeBand::Large: return ">=16MiB";
  }
  return "?";
}

std::optional<SizeBand> parse_size_band(std::string_view s) { return parse_enum<SizeBand, kSizeBands>(s, false); }

}  // namespace tt
