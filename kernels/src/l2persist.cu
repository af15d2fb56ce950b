// The l2persist family's kernel, launcher, scope and model. See l2persist.hpp.
#include <algorithm>
#include <cmath>

#include "block_sum.cuh"
#include "membench/l2persist.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/pattern.hpp"
#include "membench/platform/verify.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace {
constexpr std::uint64_t kChunkVectors = kL2PersistChunkBytes / sizeof(float4);
static_assert(kChunkVectors == kL2PersistBlock, "a thread reads one vector of each chunk");
}  // namespace

namespace kernels {

// Block-step s reads hot chunk s mod hot_chunks and cold chunks
// kL2PersistColdPerHot x s + 0..3, every load past the L1 (ld.global.cg): the
// L2 is what is measured. Floats are multiples of 1/4 under 257, so each
// float4's sum is exact in float and the running sum in double.
__global__ void __launch_bounds__(kL2PersistBlock)
    l2persist_read(const float4* __restrict__ hot, const float4* __restrict__ cold, double* __restrict__ partial,
                   std::uint64_t hot_chunks, std::uint64_t steps) {
  double total = 0;
  for (std::uint64_t s = blockIdx.x; s < steps; s += gridDim.x) {
    float4 x[1 + kL2PersistColdPerHot];
    x[0] = __ldcg(hot + (s % hot_chunks) * kChunkVectors + threadIdx.x);
#pragma unroll
    for (int c = 0; c < kL2PersistColdPerHot; ++c)
      x[1 + c] = __ldcg(cold + (s * kL2PersistColdPerHot + c) * kChunkVectors + threadIdx.x);
#pragma unroll
    for (const float4& v : x) total += (v.x + v.y) + (v.z + v.w);
  }
  store_block_sum<kL2PersistBlock>(total, partial);
}

}  // namespace kernels

L2PersistLimits l2persist_limits(int device) {
  L2PersistLimits l;
  int set_aside = 0, window = 0, l2 = 0;
  if (cudaDeviceGetAttribute(&set_aside, cudaDevAttrMaxPersistingL2CacheSize, device) != cudaSuccess) set_aside = 0;
  if (cudaDeviceGetAttribute(&window, cudaDevAttrMaxAccessPolicyWindowSize, device) != cudaSuccess) window = 0;
  if (cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device) != cudaSuccess) l2 = 0;
  l.max_set_aside = static_cast<std::size_t>(std::max(set_aside, 0));
  l.max_window = static_cast<std::size_t>(std::max(window, 0));
  l.l2_bytes = static_cast<std::size_t>(std::max(l2, 0));
  return l;
}

bool l2persist_config_supported(const L2PersistConfig& c, const L2PersistLimits& limits, std::string* why) {
  auto refuse = [&](const std::string& reason) {
    if (why != nullptr) *why = reason;
    return false;
  };
  if (c.hot_bytes < kL2PersistChunkBytes || c.hot_bytes % kL2PersistChunkBytes != 0)
    return refuse("hot_bytes must be a positive multiple of " + std::to_string(kL2PersistChunkBytes));
  if (c.hit_ratio_pct < 0 || c.hit_ratio_pct > 100) return refuse("hit_ratio must be within 0..100");
  if (c.set_aside_pct < 0 || c.set_aside_pct > 100) return refuse("set_aside must be within 0..100");
  if (limits.max_set_aside == 0 || limits.max_window == 0)
    return refuse("this GPU has no L2 residency control (no persisting set-aside or access policy window)");
  if (c.hot_bytes > limits.max_window)
    return refuse("hot_bytes exceeds the largest access policy window, " + std::to_string(limits.max_window) +
                  " bytes");
  return true;
}

std::size_t l2persist_set_aside_bytes(const L2PersistConfig& c, const L2PersistLimits& limits) {
  return limits.max_set_aside / 100 * static_cast<std::size_t>(c.set_aside_pct) +
         limits.max_set_aside % 100 * static_cast<std::size_t>(c.set_aside_pct) / 100;
}

std::size_t l2persist_input_floats(const L2PersistConfig& c) {
  const std::size_t hot = c.hot_bytes / sizeof(float);
  return hot + hot * kL2PersistColdPerHot * kL2PersistRounds;
}

double l2persist_bytes(const L2PersistConfig& c) {
  return static_cast<double>(c.hot_bytes) * kL2PersistRounds * (1 + kL2PersistColdPerHot);
}

double l2persist_model_persisting_bytes(const L2PersistConfig& c, const L2PersistLimits& limits) {
  const double tagged = static_cast<double>(c.hot_bytes) * c.hit_ratio_pct / 100.0;
  return std::min(tagged, static_cast<double>(l2persist_set_aside_bytes(c, limits)));
}

double l2persist_model_l2_hot_bytes(const L2PersistConfig& c, const L2PersistLimits& limits) {
  return kL2PersistRounds * l2persist_model_persisting_bytes(c, limits);
}

double l2persist_model_dram_read_bytes(const L2PersistConfig& c, const L2PersistLimits& limits) {
  return l2persist_bytes(c) - l2persist_model_l2_hot_bytes(c, limits);
}

PersistingL2::PersistingL2(std::size_t set_aside_bytes) {
  MEMBENCH_CUDA(cudaGetDevice(&device_));
  MEMBENCH_CUDA(cudaDeviceGetLimit(&before_, cudaLimitPersistingL2CacheSize));
  MEMBENCH_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, set_aside_bytes));
}

PersistingL2::~PersistingL2() {
  // No throw from a destructor: a failure here leaves the error for the next call to report.
  const DeviceScope on(device_);  // the scope may end while another device is current
  cudaDeviceSynchronize();
  cudaCtxResetPersistingL2Cache();
  cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, before_);
}

cudaError_t plan(const L2PersistConfig& c, L2PersistPlan* p) {
  if (c.hot_bytes < kL2PersistChunkBytes || c.hot_bytes % kL2PersistChunkBytes != 0) return cudaErrorInvalidValue;
  unsigned grid = 0;
  if (const cudaError_t rc = detail::resident_grid(kernels::l2persist_read, kL2PersistBlock, 0, &grid);
      rc != cudaSuccess)
    return rc;
  p->config = c;
  p->hot_chunks = c.hot_bytes / kL2PersistChunkBytes;
  p->steps = p->hot_chunks * kL2PersistRounds;
  grid = static_cast<unsigned>(std::min<std::uint64_t>(grid, p->steps));
  p->shape = detail::shape_of(kernels::l2persist_read, grid, kL2PersistBlock);
  return cudaSuccess;
}

cudaError_t launch(const L2PersistPlan& p, const float* in, double* partial, cudaStream_t stream) {
  cudaLaunchAttribute window{};
  window.id = cudaLaunchAttributeAccessPolicyWindow;
  window.val.accessPolicyWindow.base_ptr = const_cast<float*>(in);
  window.val.accessPolicyWindow.num_bytes = p.config.hot_bytes;
  window.val.accessPolicyWindow.hitRatio = static_cast<float>(p.config.hit_ratio_pct) / 100.0f;
  window.val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  window.val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(p.shape.grid);
  config.blockDim = dim3(p.shape.block);
  config.stream = stream;
  config.attrs = &window;
  config.numAttrs = 1;
  const auto* hot = reinterpret_cast<const float4*>(in);
  const float4* cold = hot + p.hot_chunks * kChunkVectors;
  return cudaLaunchKernelEx(&config, kernels::l2persist_read, hot, cold, partial, p.hot_chunks, p.steps);
}

std::vector<double> l2persist_chunk_sums(const L2PersistConfig& c, std::uint32_t seed) {
  constexpr std::size_t kFloats = kL2PersistChunkBytes / sizeof(float);
  return pattern_chunk_sums(l2persist_input_floats(c) / kFloats, kFloats, seed);
}

double l2persist_expected(const L2PersistPlan& p, const std::vector<double>& chunk_sums, unsigned block) {
  double sum = 0;
  for (std::uint64_t s = block; s < p.steps; s += p.shape.grid) {
    sum += chunk_sums[s % p.hot_chunks];
    for (std::uint64_t c = 0; c < kL2PersistColdPerHot; ++c)
      sum += chunk_sums[p.hot_chunks + s * kL2PersistColdPerHot + c];
  }
  return sum;
}

}  // namespace membench
