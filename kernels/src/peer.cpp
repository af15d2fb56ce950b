// GPU <-> GPU copies. See peer.hpp.
#include "membench/peer.hpp"

#include <map>
#include <utility>

#include "membench/platform/cuda.hpp"
#include "membench/platform/pattern.hpp"
#include "membench/platform/verify.hpp"

namespace membench {

int peer_of(int device, int visible, int step) { return visible < 2 ? device : (device + step) % visible; }

namespace {

bool refused(std::string* why, const std::string& reason) {
  if (why != nullptr) *why = reason;
  return false;
}

}  // namespace

bool peer_step_supported(int step, int visible, std::string* why) {
  if (visible < 2) return refused(why, "needs two GPUs; " + std::to_string(visible) + " visible");
  if (step < 1 || step >= visible)
    return refused(why, "peer_step " + std::to_string(step) + " needs " + std::to_string(step + 1) + " GPUs; " +
                            std::to_string(visible) + " visible");
  return true;
}

bool peer_supported(const PeerConfig& c, int local, int peer, int visible, std::string* why) {
  auto refuse = [&](const std::string& reason) { return refused(why, reason); };
  if (visible < 2) return refuse("needs two GPUs; " + std::to_string(visible) + " visible");
  if (peer_operation(c.variant).uses_sm() && !c.access)
    return refuse("an SM reaches another GPU's memory only with peer access");
  if (c.access) {
    int can = 0, back = 0;
    if (cudaDeviceCanAccessPeer(&can, local, peer) != cudaSuccess ||
        cudaDeviceCanAccessPeer(&back, peer, local) != cudaSuccess || can == 0 || back == 0)
      return refuse("peer access between devices " + std::to_string(local) + " and " + std::to_string(peer) +
                    " is not possible");
  }
  return true;
}

namespace {

// The state this process set (access starts disabled): asking for the state
// there already is would be an error the sanitizer reports.
std::map<std::pair<int, int>, bool>& access_state() {
  static std::map<std::pair<int, int>, bool> state;
  return state;
}

}  // namespace

bool peer_access_enabled(int local, int peer) {
  const auto it = access_state().find({local, peer});
  return it != access_state().end() && it->second;
}

PeerAccess::PeerAccess(int local, int peer, bool enabled)
    : local_(local), peer_(peer), before_(peer_access_enabled(local, peer)) {
  MEMBENCH_CUDA(set_peer_access(local, peer, enabled));
}

PeerAccess::~PeerAccess() { (void)set_peer_access(local_, peer_, before_); }

cudaError_t set_peer_access(int local, int peer, bool enabled) {
  for (const auto& [from, to] : {std::pair{local, peer}, std::pair{peer, local}}) {
    bool& now = access_state()[{from, to}];
    if (now == enabled) continue;
    DeviceScope scope(from);
    const cudaError_t rc = enabled ? cudaDeviceEnablePeerAccess(to, 0) : cudaDeviceDisablePeerAccess(to);
    if (rc != cudaSuccess) return rc;
    now = enabled;
  }
  return cudaSuccess;
}

PeerSide::PeerSide(const PeerConfig& c, int local, int peer, std::uint32_t seed)
    : local_(local), peer_(peer), bytes_(c.bytes) {
  {
    DeviceScope scope(peer);
    if (peer_operation(c.variant).comes_in()) {
      source_ = DeviceAllocation(c.bytes);
      MEMBENCH_CUDA(launch_fill_pattern(static_cast<float*>(source_.get()), c.bytes / sizeof(float), seed, nullptr));
    }
    if (peer_operation(c.variant).goes_out()) {
      destination_ = DeviceAllocation(c.bytes);
      MEMBENCH_CUDA(launch_poison(destination_.get(), c.bytes, nullptr));
    }
    MEMBENCH_CUDA(cudaDeviceSynchronize());
  }
  const CopyOperation op = peer_operation(c.variant);
  if (op.direction == CopyDirection::both && !op.uses_sm()) side_ = std::make_unique<SideStream>();
}

std::optional<std::string> PeerSide::check(std::uint32_t seed) const {
  if (destination_.get() == nullptr) return std::nullopt;
  const auto bad = device_mismatches(static_cast<const float*>(destination_.get()), bytes_ / sizeof(float),
                                     [seed](std::size_t i) { return pattern_value(i, seed); });
  if (!bad) return std::nullopt;
  return describe(*bad, "peer destination");
}

EngineCopy PeerSide::engine_copy() const {
  return [local = local_, peer = peer_, bytes = bytes_](void* dst, const void* src, bool comes_in, cudaStream_t s) {
    return comes_in ? cudaMemcpyPeerAsync(dst, local, src, peer, bytes, s)
                    : cudaMemcpyPeerAsync(dst, peer, src, local, bytes, s);
  };
}

}  // namespace membench
