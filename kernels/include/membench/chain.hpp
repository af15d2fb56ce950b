// Pointer chains for latency: a random cyclic order of n nodes, the same on
// host and device, and kernels that write a chain following it. Node j of the
// cycle is CycleOrder::node(j), a keyed bijection of [0, n): a four-round
// Feistel network on the next power of four, cycle-walked into range. A chain
// visits every node once per lap in an order no prefetcher or coalescer can
// follow, and the node reached after k steps from the head is node(k mod n),
// so the host can check where a chase ended without chasing.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "membench/platform/pattern.hpp"  // MEMBENCH_HOST_DEVICE

namespace membench {

class CycleOrder {
 public:
  MEMBENCH_HOST_DEVICE CycleOrder(std::uint64_t n, std::uint32_t key) : n_(n), key_(key) {
    while (half_bits_ < 31 && (std::uint64_t{1} << (2 * half_bits_)) < n) ++half_bits_;
  }
  MEMBENCH_HOST_DEVICE std::uint64_t size() const { return n_; }
  // The j-th node of the cycle (j < size()).
  MEMBENCH_HOST_DEVICE std::uint64_t node(std::uint64_t j) const {
    std::uint64_t x = j;
    do { x = permute(x); } while (x >= n_);
    return x;
  }

 private:
  MEMBENCH_HOST_DEVICE static std::uint32_t round(std::uint32_t x, std::uint32_t key) {
    x ^= key;
    x *= 0x9E3779B1u;
    x ^= x >> 15;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    return x;
  }
  // A bijection of [0, 4^half_bits).
  MEMBENCH_HOST_DEVICE std::uint64_t permute(std::uint64_t x) const {
    const std::uint64_t mask = (std::uint64_t{1} << half_bits_) - 1;
    std::uint64_t left = x >> half_bits_, right = x & mask;
    for (std::uint32_t r = 0; r < 4; ++r) {
      const std::uint64_t next = left ^ (round(static_cast<std::uint32_t>(right), key_ + 0x632BE5ABu * r) & mask);
      left = right;
      right = next;
    }
    return (left << half_bits_) | right;
  }
  std::uint64_t n_;
  std::uint32_t key_;
  int half_bits_ = 1;
};

// Node k of `nodes` lies at byte k x stride of the chain buffer, and holds
// where the chase goes next: the next node's address (pointer chains, read
// with 8-byte loads) or its byte offset (offset chains, 4-byte words).
// stride must be a multiple of the word; the bytes between nodes are left
// as they were.
cudaError_t launch_fill_pointer_chain(std::uint64_t* chain, std::uint64_t nodes, std::size_t stride, std::uint32_t key,
                                      cudaStream_t stream);
cudaError_t launch_fill_offset_chain(std::uint32_t* chain, std::uint64_t nodes, std::size_t stride, std::uint32_t key,
                                     cudaStream_t stream);

}  // namespace membench
