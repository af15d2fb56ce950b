// GPU <-> GPU copies. See peer.hpp.
#include "membench/peer.hpp"

#include <map>
#include <utility>

#include "membench/pattern.hpp"
#include "membench/verify.hpp"

namespace membench {

namespace {

// Makes `device` current for a scope.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    MEMBENCH_CUDA(cudaGetDevice(&previous_));
    MEMBENCH_CUDA(cudaSetDevice(device));
  }
  ~DeviceScope() { cudaSetDevice(previous_); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace

bool peer_uses_sm(PeerVariant v) {
  return v == PeerVariant::read_sm || v == PeerVariant::write_sm || v == PeerVariant::bidirectional_sm;
}

bool peer_reads(PeerVariant v) {
  return v == PeerVariant::read_ce || v == PeerVariant::read_sm || v == PeerVariant::bidirectional_ce ||
         v == PeerVariant::bidirectional_sm;
}

bool peer_writes(PeerVariant v) {
  return v == PeerVariant::write_ce || v == PeerVariant::write_sm || v == PeerVariant::bidirectional_ce ||
         v == PeerVariant::bidirectional_sm;
}

double peer_bytes(const PeerConfig& c) {
  return static_cast<double>(c.bytes) * ((peer_reads(c.variant) ? 1 : 0) + (peer_writes(c.variant) ? 1 : 0));
}

int peer_of(int device, int visible) { return visible < 2 ? device : (device + 1) % visible; }

bool peer_supported(const PeerConfig& c, int local, int peer, int visible, std::string* why) {
  auto refuse = [&](const std::string& reason) {
    if (why != nullptr) *why = reason;
    return false;
  };
  if (visible < 2) return refuse("needs two GPUs; " + std::to_string(visible) + " visible");
  if (peer_uses_sm(c.variant) && !c.access) return refuse("an SM reaches another GPU's memory only with peer access");
  if (c.access) {
    int can = 0, back = 0;
    if (cudaDeviceCanAccessPeer(&can, local, peer) != cudaSuccess || cudaDeviceCanAccessPeer(&back, peer, local) != cudaSuccess ||
        can == 0 || back == 0)
      return refuse("peer access between devices " + std::to_string(local) + " and " + std::to_string(peer) +
                    " is not possible");
  }
  return true;
}

cudaError_t set_peer_access(int local, int peer, bool enabled) {
  // The state this process set (access starts disabled): asking for the
  // state there already is would be an error the sanitizer reports.
  static std::map<std::pair<int, int>, bool> state;
  for (const auto& [from, to] : {std::pair{local, peer}, std::pair{peer, local}}) {
    bool& now = state[{from, to}];
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
    if (peer_reads(c.variant)) {
      source_ = DeviceAllocation(c.bytes);
      MEMBENCH_CUDA(launch_fill_pattern(static_cast<float*>(source_.get()), c.bytes / sizeof(float), seed, nullptr));
    }
    if (peer_writes(c.variant)) {
      destination_ = DeviceAllocation(c.bytes);
      MEMBENCH_CUDA(launch_poison(destination_.get(), c.bytes, nullptr));
    }
    MEMBENCH_CUDA(cudaDeviceSynchronize());
  }
  if (c.variant == PeerVariant::bidirectional_ce) side_ = std::make_unique<SideStream>();
}

std::optional<std::string> PeerSide::check(std::uint32_t seed) const {
  if (destination_.get() == nullptr) return std::nullopt;
  const auto got = copy_to_host(static_cast<const float*>(destination_.get()), bytes_ / sizeof(float));
  const auto bad = all_mismatches(got, [seed](std::size_t i) { return pattern_value(i, seed); });
  if (!bad) return std::nullopt;
  return describe(*bad, "peer destination");
}

cudaError_t launch(const PeerConfig& c, const PeerSide& p, const void* in, void* out, cudaStream_t stream) {
  if (c.bytes % 16 != 0) return cudaErrorInvalidValue;
  switch (c.variant) {
    case PeerVariant::read_ce:
      return cudaMemcpyPeerAsync(out, p.local(), p.source(), p.peer(), c.bytes, stream);
    case PeerVariant::write_ce:
      return cudaMemcpyPeerAsync(p.destination(), p.peer(), in, p.local(), c.bytes, stream);
    case PeerVariant::bidirectional_ce: {
      cudaError_t rc = p.side()->fork(stream);
      if (rc == cudaSuccess) rc = cudaMemcpyPeerAsync(p.destination(), p.peer(), in, p.local(), c.bytes, p.side()->get());
      if (rc == cudaSuccess) rc = cudaMemcpyPeerAsync(out, p.local(), p.source(), p.peer(), c.bytes, stream);
      return rc == cudaSuccess ? p.side()->join(stream) : rc;
    }
    case PeerVariant::read_sm:
      return launch_copy({p.source(), out, c.bytes}, nullptr, stream);
    case PeerVariant::write_sm:
      return launch_copy({in, p.destination(), c.bytes}, nullptr, stream);
    case PeerVariant::bidirectional_sm: {
      const CopyJob push{in, p.destination(), c.bytes};
      return launch_copy({p.source(), out, c.bytes}, &push, stream);
    }
  }
  return cudaErrorInvalidValue;
}

}  // namespace membench
