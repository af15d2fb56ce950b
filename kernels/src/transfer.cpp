// Host <-> device transfers. See transfer.hpp.
#include "membench/transfer.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#include "membench/cuda.hpp"
#include "membench/pattern.hpp"
#include "membench/verify.hpp"

namespace membench {

bool transfer_uses_sm(TransferVariant v) {
  return v == TransferVariant::h2d_sm || v == TransferVariant::d2h_sm || v == TransferVariant::bidirectional_sm;
}

bool transfer_to_device(TransferVariant v) {
  return v == TransferVariant::h2d_ce || v == TransferVariant::h2d_sm || v == TransferVariant::bidirectional_ce ||
         v == TransferVariant::bidirectional_sm;
}

bool transfer_to_host(TransferVariant v) {
  return v == TransferVariant::d2h_ce || v == TransferVariant::d2h_sm || v == TransferVariant::bidirectional_ce ||
         v == TransferVariant::bidirectional_sm;
}

HostMemory transfer_host_memory(const TransferConfig& c) {
  if (transfer_uses_sm(c.variant)) return HostMemory::mapped;
  return c.host == TransferHost::pinned ? HostMemory::pinned : HostMemory::pageable;
}

double transfer_bytes(const TransferConfig& c) {
  const int directions = (transfer_to_device(c.variant) ? 1 : 0) + (transfer_to_host(c.variant) ? 1 : 0);
  return static_cast<double>(c.bytes) * directions;
}

HostBuffer::HostBuffer(HostMemory kind, std::size_t bytes) : kind_(kind), bytes_(bytes) {
  if (bytes == 0) return;
  switch (kind) {
    case HostMemory::pinned:
      MEMBENCH_CUDA(cudaMallocHost(reinterpret_cast<void**>(&host_), bytes));
      break;
    case HostMemory::mapped:
      MEMBENCH_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&host_), bytes, cudaHostAllocMapped));
      MEMBENCH_CUDA(cudaHostGetDevicePointer(&device_, host_, 0));
      break;
    case HostMemory::pageable:
      host_ = static_cast<float*>(std::malloc(bytes));
      if (host_ == nullptr) throw std::bad_alloc();
      break;
  }
}

HostBuffer::~HostBuffer() {
  if (host_ == nullptr) return;
  if (kind_ == HostMemory::pageable) std::free(host_);
  else cudaFreeHost(host_);
}

void fill_host_pattern(float* data, std::size_t count, std::uint32_t seed) {
  parallel_for(count, std::size_t{1} << 20, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) data[i] = pattern_value(i, seed);
  });
}

TransferHostSide::TransferHostSide(const TransferConfig& c, std::uint32_t seed) {
  const HostMemory kind = transfer_host_memory(c);
  if (transfer_to_device(c.variant)) {
    source_ = std::make_unique<HostBuffer>(kind, c.bytes);
    fill_host_pattern(source_->host(), source_->floats(), seed);
  }
  if (transfer_to_host(c.variant)) {
    destination_ = std::make_unique<HostBuffer>(kind, c.bytes);
    std::memset(destination_->host(), kPoisonByte, c.bytes);
  }
  if (c.variant == TransferVariant::bidirectional_ce) side_ = std::make_unique<SideStream>();
}

std::optional<std::string> TransferHostSide::check(std::uint32_t seed) const {
  if (!destination_) return std::nullopt;
  const auto bad = all_mismatches(destination_->host(), destination_->floats(),
                                  [seed](std::size_t i) { return pattern_value(i, seed); });
  if (!bad) return std::nullopt;
  return describe(*bad, "host destination");
}

cudaError_t launch(const TransferConfig& c, const TransferHostSide& host, const void* in, void* out,
                   cudaStream_t stream) {
  if (c.bytes % 16 != 0) return cudaErrorInvalidValue;
  const HostBuffer* src = host.source();
  const HostBuffer* dst = host.destination();
  switch (c.variant) {
    case TransferVariant::h2d_ce:
      return cudaMemcpyAsync(out, src->host(), c.bytes, cudaMemcpyHostToDevice, stream);
    case TransferVariant::d2h_ce:
      return cudaMemcpyAsync(dst->host(), in, c.bytes, cudaMemcpyDeviceToHost, stream);
    case TransferVariant::bidirectional_ce: {
      cudaError_t rc = host.side()->fork(stream);
      if (rc == cudaSuccess) rc = cudaMemcpyAsync(dst->host(), in, c.bytes, cudaMemcpyDeviceToHost, host.side()->get());
      if (rc == cudaSuccess) rc = cudaMemcpyAsync(out, src->host(), c.bytes, cudaMemcpyHostToDevice, stream);
      return rc == cudaSuccess ? host.side()->join(stream) : rc;
    }
    case TransferVariant::h2d_sm:
      return launch_copy({src->device(), out, c.bytes}, nullptr, stream);
    case TransferVariant::d2h_sm:
      return launch_copy({in, dst->device(), c.bytes}, nullptr, stream);
    case TransferVariant::bidirectional_sm: {
      const CopyJob back{in, dst->device(), c.bytes};
      return launch_copy({src->device(), out, c.bytes}, &back, stream);
    }
  }
  return cudaErrorInvalidValue;
}

}  // namespace membench
