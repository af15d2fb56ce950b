// The managed family's kernel, buffer and launcher. See managed.hpp.
#include <algorithm>
#include <cstdlib>
#include <new>

#include "block_sum.cuh"
#include "membench/chain.hpp"
#include "membench/managed.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/pattern.hpp"
#include "membench/platform/verify.hpp"
#include "membench/transfer.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace {

constexpr std::uint64_t kPageVectors = kManagedPageBytes / sizeof(float4);  // one per thread
static_assert(kPageVectors == kManagedBlock, "a block reads one page per step");

struct Touch {
  ManagedTouch touch;
  std::uint64_t pages;
};

MEMBENCH_HOST_DEVICE std::uint64_t page_of(const Touch& t, std::uint64_t k) {
  switch (t.touch) {
    case ManagedTouch::sequential: return k;
    case ManagedTouch::strided: return k * kManagedStridePages;
    case ManagedTouch::random: break;
  }
  return CycleOrder(t.pages, kManagedKey).node(k);
}

}  // namespace

namespace kernels {

// Block b reads the visited pages b, b + grid, ... (four in flight), each
// with one 16-byte load per thread. Every float is a multiple of 1/4 under
// 257: a float4's sum is exact in float, the running sum in double.
__global__ void __launch_bounds__(kManagedBlock)
    managed_read(const float4* __restrict__ data, double* __restrict__ partial, std::uint64_t visited, Touch touch) {
  constexpr int kInFlight = 4;
  double total = 0;
  for (std::uint64_t k = blockIdx.x; k < visited; k += std::uint64_t{kInFlight} * gridDim.x) {
    float4 x[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) {
      const std::uint64_t j = k + static_cast<std::uint64_t>(u) * gridDim.x;
      x[u] = j < visited ? data[page_of(touch, j) * kPageVectors + threadIdx.x] : make_float4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) total += (x[u].x + x[u].y) + (x[u].z + x[u].w);
  }
  store_block_sum<kManagedBlock>(total, partial);
}

}  // namespace kernels

namespace {

Touch touch_of(const ManagedConfig& c) { return {c.touch, managed_pages(c)}; }

cudaMemLocation location(bool host, int device) {
  cudaMemLocation l{};
  l.type = host ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
  l.id = host ? 0 : device;
  return l;
}

// cudaMemPrefetchAsync and cudaMemAdvise by location (their CUDA 13 form;
// CUDA 12.2-12.9 name it _v2).
cudaError_t prefetch(const void* p, std::size_t bytes, bool to_host, int device, cudaStream_t s) {
#if CUDART_VERSION >= 13000
  return cudaMemPrefetchAsync(p, bytes, location(to_host, device), 0, s);
#else
  return cudaMemPrefetchAsync_v2(p, bytes, location(to_host, device), 0, s);
#endif
}

cudaError_t advise(const void* p, std::size_t bytes, cudaMemoryAdvise advice, bool host, int device) {
#if CUDART_VERSION >= 13000
  return cudaMemAdvise(p, bytes, advice, location(host, device));
#else
  return cudaMemAdvise_v2(p, bytes, advice, location(host, device));
#endif
}

// cudaLaunchHostFunc's callback: the buffer's host_touch.
void CUDART_CB host_touch_callback(void* buffer) { static_cast<const ManagedBuffer*>(buffer)->host_touch(); }

// What puts a variant's pages back before each launch: nothing, a prefetch
// to the host, or the host's writes.
enum class PutBack { nothing, to_host, host_writes };
PutBack put_back(ManagedVariant v) {
  switch (v) {
    case ManagedVariant::fault:
    case ManagedVariant::prefetch: return PutBack::to_host;
    case ManagedVariant::read_mostly:
    case ManagedVariant::pageable: return PutBack::host_writes;
    default: return PutBack::nothing;
  }
}

}  // namespace

bool managed_config_supported(const ManagedConfig& c, std::string* why) {
  if (c.bytes >= kManagedPageBytes && c.bytes % kManagedPageBytes == 0) return true;
  if (why != nullptr) *why = "bytes must be a positive multiple of " + std::to_string(kManagedPageBytes);
  return false;
}

bool managed_variant_available(ManagedVariant v, int device, std::string* why) {
  auto attribute = [device](cudaDeviceAttr a) {
    int value = 0;
    return cudaDeviceGetAttribute(&value, a, device) == cudaSuccess && value != 0;
  };
  auto refuse = [&](const std::string& reason) {
    if (why != nullptr) *why = reason;
    return false;
  };
  if (v == ManagedVariant::pageable) {
    if (!attribute(cudaDevAttrPageableMemoryAccess))
      return refuse("this GPU cannot use pageable system memory (cudaDevAttrPageableMemoryAccess = 0: no HMM or ATS)");
    return true;
  }
  if (!attribute(cudaDevAttrManagedMemory)) return refuse("this GPU has no managed memory");
  if (!attribute(cudaDevAttrConcurrentManagedAccess))
    return refuse(
        "no concurrent managed access here (cudaDevAttrConcurrentManagedAccess = 0): pages do not migrate on fault");
  return true;
}

std::uint64_t managed_pages(const ManagedConfig& c) { return c.bytes / kManagedPageBytes; }

std::uint64_t managed_visited_pages(const ManagedConfig& c) {
  const std::uint64_t pages = managed_pages(c);
  return c.touch == ManagedTouch::strided ? (pages + kManagedStridePages - 1) / kManagedStridePages : pages;
}

std::uint64_t managed_page_of(const ManagedConfig& c, std::uint64_t k) { return page_of(touch_of(c), k); }

double managed_read_bytes(const ManagedConfig& c) {
  return static_cast<double>(managed_visited_pages(c)) * kManagedPageBytes;
}

// Every touch reads a page in every migration block (strided's one page in
// 16 is one per 64 KiB block), so every block, the whole buffer, migrates.
static_assert(kManagedStridePages * kManagedPageBytes <= kManagedMigrationBytes,
              "a strided touch reads a page of every migration block");

double managed_migrated_bytes(const ManagedConfig& c) {
  switch (c.variant) {
    case ManagedVariant::resident:
    case ManagedVariant::remote: return 0;
    case ManagedVariant::ping_pong: return 2.0 * static_cast<double>(c.bytes);
    default: return static_cast<double>(c.bytes);
  }
}

double managed_link_bytes(const ManagedConfig& c) {
  return c.variant == ManagedVariant::remote ? managed_read_bytes(c) : managed_migrated_bytes(c);
}

ManagedBuffer::ManagedBuffer(const ManagedConfig& c, int device, std::uint32_t seed) : config_(c), device_(device) {
  if (c.variant == ManagedVariant::pageable) {
    data_ = static_cast<float*>(std::aligned_alloc(kManagedPageBytes, c.bytes));
    if (data_ == nullptr) throw std::bad_alloc();
  } else {
    MEMBENCH_CUDA(cudaMallocManaged(reinterpret_cast<void**>(&data_), c.bytes, cudaMemAttachGlobal));
  }
  fill_host_pattern(data_, c.bytes / sizeof(float), seed);  // the host's first touch: the pages are the host's
  if (c.variant == ManagedVariant::read_mostly)
    MEMBENCH_CUDA(advise(data_, c.bytes, cudaMemAdviseSetReadMostly, false, device));
  if (c.variant == ManagedVariant::remote) {
    MEMBENCH_CUDA(advise(data_, c.bytes, cudaMemAdviseSetPreferredLocation, true, device));
    MEMBENCH_CUDA(advise(data_, c.bytes, cudaMemAdviseSetAccessedBy, false, device));
  }
  if (c.variant == ManagedVariant::resident) {
    MEMBENCH_CUDA(prefetch(data_, c.bytes, false, device, nullptr));
    MEMBENCH_CUDA(cudaDeviceSynchronize());
  }
}

ManagedBuffer::~ManagedBuffer() {
  if (data_ == nullptr) return;
  if (config_.variant == ManagedVariant::pageable)
    std::free(data_);
  else
    cudaFree(data_);
}

void ManagedBuffer::host_touch() const {
  volatile float* v = data_;
  for (std::size_t i = 0; i < config_.bytes / sizeof(float); i += kManagedPageBytes / sizeof(float)) v[i] = v[i];
}

bool ManagedBuffer::has_before_each() const { return put_back(config_.variant) != PutBack::nothing; }

cudaError_t ManagedBuffer::before_each(cudaStream_t stream) const {
  switch (put_back(config_.variant)) {
    case PutBack::to_host: return prefetch(data_, config_.bytes, true, device_, stream);
    case PutBack::host_writes: return cudaLaunchHostFunc(stream, host_touch_callback, const_cast<ManagedBuffer*>(this));
    case PutBack::nothing: break;
  }
  return cudaSuccess;
}

cudaError_t ManagedBuffer::before_kernel(cudaStream_t stream) const {
  if (config_.variant == ManagedVariant::prefetch) return prefetch(data_, config_.bytes, false, device_, stream);
  if (config_.variant == ManagedVariant::ping_pong)
    return cudaLaunchHostFunc(stream, host_touch_callback, const_cast<ManagedBuffer*>(this));
  return cudaSuccess;
}

cudaError_t plan(const ManagedConfig& c, ManagedPlan* p) {
  if (!managed_config_supported(c, nullptr)) return cudaErrorInvalidValue;
  unsigned grid = 0;
  if (const cudaError_t rc = detail::resident_grid(kernels::managed_read, kManagedBlock, 0, &grid); rc != cudaSuccess)
    return rc;
  grid = static_cast<unsigned>(std::min<std::uint64_t>(grid, managed_visited_pages(c)));
  p->config = c;
  p->shape = detail::shape_of(kernels::managed_read, grid, kManagedBlock);
  return cudaSuccess;
}

cudaError_t launch(const ManagedPlan& p, const float* data, double* partial, cudaStream_t stream) {
  kernels::managed_read<<<p.shape.grid, p.shape.block, 0, stream>>>(
      reinterpret_cast<const float4*>(data), partial, managed_visited_pages(p.config), touch_of(p.config));
  return cudaGetLastError();
}

std::vector<double> managed_page_sums(const ManagedConfig& c, std::uint32_t seed) {
  return pattern_chunk_sums(managed_pages(c), kManagedPageBytes / sizeof(float), seed);
}

double managed_expected(const ManagedConfig& c, const std::vector<double>& page_sums, unsigned grid, unsigned block) {
  double sum = 0;
  const std::uint64_t visited = managed_visited_pages(c);
  for (std::uint64_t k = block; k < visited; k += grid) sum += page_sums[managed_page_of(c, k)];
  return sum;
}

}  // namespace membench
