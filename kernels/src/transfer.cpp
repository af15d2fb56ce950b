// Host <-> device transfers. See transfer.hpp.
#include "membench/transfer.hpp"

#include <cstring>

#include "membench/platform/cuda.hpp"
#include "membench/platform/pattern.hpp"
#include "membench/platform/verify.hpp"

namespace membench {

HostMemory transfer_host_memory(const TransferConfig& c) {
  if (transfer_operation(c.variant).uses_sm()) return HostMemory::mapped;
  return c.host == TransferHost::pinned ? HostMemory::pinned : HostMemory::pageable;
}

HostBuffer::HostBuffer(HostMemory kind, std::size_t bytes, std::optional<int> node) : memory_(bytes, node) {
  if (bytes == 0 || kind == HostMemory::pageable) return;
  // Registering faults every page in, where the binding says, and pins it.
  const unsigned flags =
      kind == HostMemory::mapped ? cudaHostRegisterMapped | cudaHostRegisterPortable : cudaHostRegisterDefault;
  MEMBENCH_CUDA(cudaHostRegister(memory_.get(), bytes, flags));
  registered_ = true;
  if (kind == HostMemory::mapped) MEMBENCH_CUDA(cudaHostGetDevicePointer(&device_, memory_.get(), 0));
}

HostBuffer::~HostBuffer() {
  if (registered_) cudaHostUnregister(memory_.get());
}

void fill_host_pattern(float* data, std::size_t count, std::uint32_t seed) {
  parallel_for(count, std::size_t{1} << 20, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) data[i] = pattern_value(i, seed);
  });
}

TransferHostSide::TransferHostSide(const TransferConfig& c, std::uint32_t seed, std::optional<int> node) {
  const HostMemory kind = transfer_host_memory(c);
  const CopyOperation op = transfer_operation(c.variant);
  mapped_ = kind == HostMemory::mapped;
  if (op.comes_in()) {
    source_ = std::make_unique<HostBuffer>(kind, c.bytes, node);
    fill_host_pattern(source_->host(), source_->floats(), seed);
  }
  if (op.goes_out()) {
    destination_ = std::make_unique<HostBuffer>(kind, c.bytes, node);
    std::memset(destination_->host(), kPoisonByte, c.bytes);
  }
  if (op.direction == CopyDirection::both && !op.uses_sm()) side_ = std::make_unique<SideStream>();
}

CopyEnds TransferHostSide::ends(const void* in, void* out) const {
  // The SMs reach mapped host memory through its device address; the copy engine takes the host's.
  const auto at = [this](const HostBuffer* b) -> void* {
    return b == nullptr ? nullptr : mapped_ ? b->device() : static_cast<void*>(b->host());
  };
  return {in, at(destination_.get()), at(source_.get()), out};
}

EngineCopy host_engine_copy(std::size_t bytes) {
  return [bytes](void* dst, const void* src, bool comes_in, cudaStream_t s) {
    return cudaMemcpyAsync(dst, src, bytes, comes_in ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, s);
  };
}

std::optional<std::string> TransferHostSide::check(std::uint32_t seed) const {
  if (!destination_) return std::nullopt;
  const auto bad = all_mismatches(destination_->host(), destination_->floats(),
                                  [seed](std::size_t i) { return pattern_value(i, seed); });
  if (!bad) return std::nullopt;
  return describe(*bad, "host destination");
}

}  // namespace membench
