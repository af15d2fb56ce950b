// GPU <-> GPU: the local GPU reads another GPU's memory, writes it, or both
// at once, by its copy engine (cudaMemcpyPeerAsync, with peer access
// enabled or disabled) or by an SM kernel through peer access. Case names
// follow NVIDIA's nvbandwidth.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "membench/copy.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/int_list.hpp"

namespace membench {

enum class PeerVariant { read_ce, write_ce, bidirectional_ce, read_sm, write_sm, bidirectional_sm };
inline constexpr auto kPeerVariants = enum_names<PeerVariant>(
    "device_to_device_memcpy_read_ce", "device_to_device_memcpy_write_ce", "device_to_device_bidirectional_memcpy_ce",
    "device_to_device_memcpy_read_sm", "device_to_device_memcpy_write_sm", "device_to_device_bidirectional_memcpy_sm");

struct PeerConfig {
  PeerVariant variant = PeerVariant::read_ce;
  bool access = true;     // peer access enabled (the SM variants need it)
  std::size_t bytes = 0;  // per direction, a multiple of 16
  int passes = 1;         // SM variants: times one launch copies the bytes (1..kCopyMaxPasses)
};

// The copy operation of a variant: a read comes in from the peer, a write goes out to it.
inline CopyOperation peer_operation(PeerVariant v) { return kCopyOperations[static_cast<int>(v)]; }

// The GPU a device pairs with: the one `step` places after it in the
// visible order, wrapping around (1: the next). Over the steps 1 .. visible
// - 1 each device reaches every other once: the pair matrix.
int peer_of(int device, int visible, int step = 1);
// Whether `step` names another GPU among `visible`; otherwise why not.
bool peer_step_supported(int step, int visible, std::string* why);
// Whether the case can run between `local` and `peer`; otherwise why not.
bool peer_supported(const PeerConfig& c, int local, int peer, int visible, std::string* why);
// Enables or disables peer access both ways (an already-set state is fine).
cudaError_t set_peer_access(int local, int peer, bool enabled);
// Whether this process has enabled access from `local` to `peer`.
bool peer_access_enabled(int local, int peer);

// Peer access both ways between two GPUs, set for as long as the scope lives
// and put back as it was when it goes: a case holds one, so the next case
// finds access as the run found it. Throws CudaError where it cannot be set.
class PeerAccess {
 public:
  PeerAccess(int local, int peer, bool enabled);
  ~PeerAccess();
  PeerAccess(const PeerAccess&) = delete;
  PeerAccess& operator=(const PeerAccess&) = delete;

 private:
  int local_;
  int peer_;
  bool before_;
};

// The peer GPU's side of a case: a source holding the float pattern with
// `seed` (read) and a poisoned destination (write), and the side stream of
// a bidirectional copy-engine case.
class PeerSide {
 public:
  PeerSide(const PeerConfig& c, int local, int peer, std::uint32_t seed);
  std::optional<std::string> check(std::uint32_t seed) const;  // the destination against the pattern
  // The operation's four addresses, with the local buffers `in` (what goes
  // out) and `out` (where what comes in lands).
  CopyEnds ends(const void* in, void* out) const { return {in, destination(), source(), out}; }
  // The copy engine's call between the two GPUs.
  EngineCopy engine_copy() const;
  const void* source() const { return source_.get(); }
  void* destination() const { return destination_.get(); }
  int local() const { return local_; }
  int peer() const { return peer_; }
  const SideStream* side() const { return side_.get(); }

 private:
  int local_, peer_;
  DeviceAllocation source_, destination_;
  std::unique_ptr<SideStream> side_;
  std::size_t bytes_;
};

}  // namespace membench
