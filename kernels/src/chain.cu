// The chain-writing kernels. See chain.hpp.
#include "membench/chain.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace kernels {

// Node order(j) points at node order(j + 1), the last at the first.
template <class Word, bool kPointer>
__global__ void fill_chain(Word* chain, std::uint64_t nodes, std::size_t stride, std::uint32_t key) {
  const CycleOrder order(nodes, key);
  char* base = reinterpret_cast<char*>(chain);
  for (std::uint64_t j = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; j < nodes;
       j += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t here = order.node(j);
    const std::uint64_t next = order.node(j + 1 == nodes ? 0 : j + 1);
    const std::uint64_t offset = next * stride;
    *reinterpret_cast<Word*>(base + here * stride) =
        kPointer ? static_cast<Word>(reinterpret_cast<std::uintptr_t>(base + offset)) : static_cast<Word>(offset);
  }
}

}  // namespace kernels

namespace {

template <class Word, bool kPointer>
cudaError_t fill(Word* chain, std::uint64_t nodes, std::size_t stride, std::uint32_t key, cudaStream_t stream) {
  if (nodes == 0) return cudaSuccess;
  if (stride % sizeof(Word) != 0) return cudaErrorInvalidValue;
  if (!kPointer && nodes * stride > (std::uint64_t{1} << 32)) return cudaErrorInvalidValue;  // offsets are 32-bit
  constexpr unsigned kBlock = 256;
  const unsigned grid = static_cast<unsigned>(std::min<std::uint64_t>(detail::ceil_div(nodes, kBlock), 4096));
  kernels::fill_chain<Word, kPointer><<<grid, kBlock, 0, stream>>>(chain, nodes, stride, key);
  return detail::last_launch_error();
}

}  // namespace

cudaError_t launch_fill_pointer_chain(std::uint64_t* chain, std::uint64_t nodes, std::size_t stride, std::uint32_t key,
                                      cudaStream_t stream) {
  return fill<std::uint64_t, true>(chain, nodes, stride, key, stream);
}

cudaError_t launch_fill_offset_chain(std::uint32_t* chain, std::uint64_t nodes, std::size_t stride, std::uint32_t key,
                                     cudaStream_t stream) {
  return fill<std::uint32_t, false>(chain, nodes, stride, key, stream);
}

}  // namespace membench
