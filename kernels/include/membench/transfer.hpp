// Host <-> device transfers: H2D, D2H and both at once, by the copy engine
// (cudaMemcpyAsync from pinned or pageable host memory) or by an SM kernel
// reading or writing mapped (zero-copy) host memory. Case names follow
// NVIDIA's nvbandwidth where they match it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "membench/copy.hpp"
#include "membench/platform/int_list.hpp"
#include "membench/platform/numa.hpp"

namespace membench {

enum class TransferVariant { h2d_ce, d2h_ce, bidirectional_ce, h2d_sm, d2h_sm, bidirectional_sm };
inline constexpr auto kTransferVariants =
    enum_names<TransferVariant>("host_to_device_memcpy_ce", "device_to_host_memcpy_ce", "bidirectional_memcpy_ce",
                                "host_to_device_memcpy_sm", "device_to_host_memcpy_sm", "bidirectional_memcpy_sm");

// Host memory of the copy-engine variants (the SM variants use mapped memory).
enum class TransferHost { pinned, pageable };
inline constexpr auto kTransferHosts = enum_names<TransferHost>("pinned", "pageable");

// mapped: pinned, mapped into the device address space and portable (pinned
// and mapped for every GPU of the process).
enum class HostMemory { pinned, pageable, mapped };

// Which socket's memory the host buffers are: the GPU's own NUMA node, or
// the nearest other (a hop over the link between the sockets).
enum class TransferNode { local, remote };

struct TransferConfig {
  TransferVariant variant = TransferVariant::h2d_ce;
  TransferHost host = TransferHost::pinned;  // copy-engine variants only
  std::size_t bytes = 0;                     // per direction, a multiple of 16
  int passes = 1;                            // SM variants: copies of the bytes per launch (CopyPlan)
};

// The copy operation of a variant: H2D comes in to the device, D2H goes out.
inline CopyOperation transfer_operation(TransferVariant v) { return kCopyOperations[static_cast<int>(v)]; }
HostMemory transfer_host_memory(const TransferConfig& c);

// Host memory of one kind, its pages on NUMA node `node` where one is
// named (bound before any page is touched, then pinned by
// cudaHostRegister for the pinned and mapped kinds); device() is its
// device address (mapped memory only).
class HostBuffer {
 public:
  HostBuffer(HostMemory kind, std::size_t bytes, std::optional<int> node = std::nullopt);
  ~HostBuffer();
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  float* host() const { return static_cast<float*>(memory_.get()); }
  void* device() const { return device_; }
  template <class T>
  T* device_as() const {
    return static_cast<T*>(device_);
  }
  std::size_t floats() const { return memory_.bytes() / sizeof(float); }

 private:
  NodeMemory memory_;
  bool registered_ = false;
  void* device_ = nullptr;
};

// The host side of a case: what goes to the device (the float pattern with
// `seed`) and what comes back (poisoned), and the side stream of a
// bidirectional copy-engine case.
class TransferHostSide {
 public:
  // `node`: the NUMA node of the host buffers (none: the kernel's choice).
  TransferHostSide(const TransferConfig& c, std::uint32_t seed, std::optional<int> node = std::nullopt);
  const HostBuffer* source() const { return source_.get(); }
  const HostBuffer* destination() const { return destination_.get(); }
  const SideStream* side() const { return side_.get(); }
  // The operation's four addresses, with the device's buffers `in` (what
  // goes out) and `out` (where what comes in lands).
  CopyEnds ends(const void* in, void* out) const;
  // The destination against the pattern: empty when right, else what is wrong.
  std::optional<std::string> check(std::uint32_t seed) const;

 private:
  std::unique_ptr<HostBuffer> source_, destination_;
  std::unique_ptr<SideStream> side_;
  bool mapped_ = false;
};

// The copy engine's call between this device and host memory.
EngineCopy host_engine_copy(std::size_t bytes);

// Fills `count` floats of host memory with pattern_value(i, seed), on all host cores.
void fill_host_pattern(float* data, std::size_t count, std::uint32_t seed);

}  // namespace membench
