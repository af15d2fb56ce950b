// The distributed-shared-memory kernels and launcher. See dsmem.hpp.
#include <cooperative_groups.h>

#include <cub/block/block_reduce.cuh>
#include <map>
#include <tuple>

#include "membench/chain.hpp"
#include "membench/dsmem.hpp"
#include "membench/platform/pattern.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace kernels {

namespace cg = cooperative_groups;

__device__ __forceinline__ unsigned smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// The shared::cluster address of the same variable in block `rank` of the cluster.
__device__ __forceinline__ unsigned cluster_address(unsigned local, unsigned rank) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
  return remote;
}

template <bool kRemote>
__device__ __forceinline__ float4 load_vector(unsigned address) {
  float4 v;
  if constexpr (kRemote)
    asm volatile("ld.volatile.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "r"(address));
  else
    asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "r"(address));
  return v;
}

template <bool kRemote>
__device__ __forceinline__ unsigned load_word(unsigned address) {
  unsigned v;
  if constexpr (kRemote)
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(address));
  else
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(address));
  return v;
}

using DsmemReduce = cub::BlockReduce<double, kDsmemBlock>;
// The read's dynamic shared memory: the buffer, then the reduction's scratch.
// No static shared memory comes before the buffer, and it is aligned to a
// 128-byte line, so a warp's 512-byte load is 16 sectors: a buffer 16 bytes
// off a line (behind a static scratch) costs a 17th sector on every load
// over the SM-to-SM network (ncu: l1tex__m_xbar2l1tex_read_bytes_mem_dshared).
constexpr std::size_t kDsmemReadSmem = kDsmemBytes + (sizeof(DsmemReduce::TempStorage) + 127) / 128 * 128;

// Each block copies its part of the input into shared memory; then every
// thread reads its target's buffer `reps` times, 16 bytes at a time.
// Per repetition a thread adds 32 floats (multiples of 1/4 under 257), exact
// in float, then in double.
template <bool kRemote>
__global__ void __launch_bounds__(kDsmemBlock)
    dsmem_read(const float4* __restrict__ in, double* __restrict__ out, int reps) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int kVectors = static_cast<int>(kDsmemBytes / 16);
  extern __shared__ __align__(128) float4 buffer[];
  cg::cluster_group cluster = cg::this_cluster();
  const float4* mine = in + static_cast<std::size_t>(blockIdx.x) * kVectors;
  for (int i = threadIdx.x; i < kVectors; i += kDsmemBlock) buffer[i] = mine[i];
  cluster.sync();
  const unsigned local = smem_address(buffer);
  const unsigned base = kRemote ? cluster_address(local, (cluster.block_rank() + 1) % cluster.num_blocks()) : local;
  constexpr int kPer = kVectors / kDsmemBlock;
  double total = 0.0;
  for (int r = 0; r < reps; ++r) {
    float4 x[kPer];
#pragma unroll
    for (int p = 0; p < kPer; ++p) x[p] = load_vector<kRemote>(base + 16u * (threadIdx.x + p * kDsmemBlock));
    float s = 0.0f;
#pragma unroll
    for (int p = 0; p < kPer; ++p) s += (x[p].x + x[p].y) + (x[p].z + x[p].w);
    total += s;
  }
  cluster.sync();  // no block leaves while another still reads its buffer
  auto& scratch = *reinterpret_cast<DsmemReduce::TempStorage*>(buffer + kVectors);
  const double sum = DsmemReduce(scratch).Sum(total);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
#elif defined(__CUDA_ARCH__)
  __trap();  // built without sm_90 code; the host refuses to launch this
#endif
}

// Each block copies the chain into its shared memory, turning the offsets
// into addresses its reader can load directly (this block's shared::cta
// window for local, the cluster window for remote); thread 0 then chases its
// target's chain for `steps` loads and records the node it reached.
template <bool kRemote>
__global__ void __launch_bounds__(kDsmemBlock)
    dsmem_chase(const std::uint32_t* __restrict__ chain, double* __restrict__ out, std::uint32_t head,
                std::uint64_t steps) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int kWords = static_cast<int>(kDsmemBytes / 4);
  extern __shared__ __align__(128) std::uint32_t words[];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned local = smem_address(words);
  const unsigned my_base = kRemote ? cluster_address(local, rank) : local;
  for (int i = threadIdx.x; i < kWords; i += kDsmemBlock) words[i] = my_base + chain[i];
  cluster.sync();
  if (threadIdx.x == 0) {
    const unsigned base = kRemote ? cluster_address(local, (rank + 1) % cluster.num_blocks()) : local;
    unsigned a = base + head;
#pragma unroll 16
    for (std::uint64_t k = 0; k < steps; ++k) a = load_word<kRemote>(a);
    out[blockIdx.x] = static_cast<double>((a - base) / 4);
  }
  cluster.sync();
#elif defined(__CUDA_ARCH__)
  __trap();
#endif
}

}  // namespace kernels

namespace {

const void* kernel_of(DsmemVariant v) {
  switch (v) {
    case DsmemVariant::read_local: return reinterpret_cast<const void*>(kernels::dsmem_read<false>);
    case DsmemVariant::read_remote: return reinterpret_cast<const void*>(kernels::dsmem_read<true>);
    case DsmemVariant::chase_local: return reinterpret_cast<const void*>(kernels::dsmem_chase<false>);
    case DsmemVariant::chase_remote: return reinterpret_cast<const void*>(kernels::dsmem_chase<true>);
  }
  return nullptr;
}

}  // namespace

bool dsmem_remote(DsmemVariant v) { return v == DsmemVariant::read_remote || v == DsmemVariant::chase_remote; }

bool dsmem_chases(DsmemVariant v) { return v == DsmemVariant::chase_local || v == DsmemVariant::chase_remote; }

bool dsmem_config_supported(const DsmemConfig& c, std::string* why) {
  if (c.cluster >= 1 && c.cluster <= kDsmemMaxCluster && c.reps >= 1) return true;
  if (why != nullptr)
    *why = c.reps < 1 ? "reps must be at least 1" : "cluster must be within 1.." + std::to_string(kDsmemMaxCluster);
  return false;
}

bool dsmem_available(std::string* why) {
  return sm90_kernel_runs(kernel_of(DsmemVariant::read_remote), "thread-block clusters", "dsmem", why);
}

unsigned dsmem_target(const DsmemConfig& c, unsigned block) {
  if (!dsmem_remote(c.variant)) return block;
  const unsigned size = static_cast<unsigned>(c.cluster);
  return block - block % size + (block % size + 1) % size;
}

std::size_t dsmem_input_elements(const DsmemConfig& c, unsigned grid) {
  return dsmem_chases(c.variant) ? kDsmemBytes / 4 : static_cast<std::size_t>(grid) * (kDsmemBytes / 4);
}

std::uint64_t dsmem_chain_nodes() { return kDsmemBytes / 4; }

cudaError_t dsmem_fill_chain(std::uint32_t* chain, cudaStream_t stream) {
  return launch_fill_offset_chain(chain, dsmem_chain_nodes(), 4, kDsmemChaseKey, stream);
}

namespace {

template <bool REMOTE>
cudaError_t run_read(const DsmemPlan& p, const float* in, double* out, cudaStream_t s) {
  const detail::ClusterLaunch launch(p.shape.grid, p.shape.block, p.shape.dynamic_smem,
                                     static_cast<unsigned>(p.config.cluster), s);
  return cudaLaunchKernelEx(launch.config(), kernels::dsmem_read<REMOTE>, reinterpret_cast<const float4*>(in), out,
                            p.config.reps);
}

template <bool REMOTE>
cudaError_t run_chase(const DsmemPlan& p, const std::uint32_t* in, double* out, cudaStream_t s) {
  const detail::ClusterLaunch launch(p.shape.grid, p.shape.block, p.shape.dynamic_smem,
                                     static_cast<unsigned>(p.config.cluster), s);
  return cudaLaunchKernelEx(launch.config(), kernels::dsmem_chase<REMOTE>, in, out, p.head,
                            std::uint64_t{kDsmemChaseSteps});
}

void set_run(DsmemVariant v, DsmemPlan* p) {
  switch (v) {
    case DsmemVariant::read_local: p->read = run_read<false>; break;
    case DsmemVariant::read_remote: p->read = run_read<true>; break;
    case DsmemVariant::chase_local: p->chase = run_chase<false>; break;
    case DsmemVariant::chase_remote: p->chase = run_chase<true>; break;
  }
}

}  // namespace

cudaError_t plan(const DsmemConfig& c, DsmemPlan* p) {
  if (!dsmem_config_supported(c, nullptr)) return cudaErrorInvalidValue;
  if (!dsmem_available(nullptr)) return cudaErrorNotSupported;
  const void* kernel = kernel_of(c.variant);
  const std::size_t smem = dsmem_chases(c.variant) ? kDsmemBytes : kernels::kDsmemReadSmem;
  cudaError_t rc = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (rc != cudaSuccess) return rc;
  const unsigned cluster = static_cast<unsigned>(c.cluster);
  unsigned grid = cluster;
  if (!dsmem_chases(c.variant)) {
    int clusters = 0;
    if ((rc = detail::resident_clusters(kernel, cluster, kDsmemBlock, smem, &clusters)) != cudaSuccess) return rc;
    if (clusters < 1) return cudaErrorInvalidConfiguration;
    grid = static_cast<unsigned>(clusters) * cluster;
  }
  p->config = c;
  p->shape = KernelShape{kernel, grid, kDsmemBlock, smem};
  p->head = static_cast<std::uint32_t>(CycleOrder(dsmem_chain_nodes(), kDsmemChaseKey).node(0) * 4);
  p->read = nullptr;
  p->chase = nullptr;
  set_run(c.variant, p);
  return cudaSuccess;
}

cudaError_t launch(const DsmemPlan& p, const float* in, double* out, cudaStream_t stream) {
  return p.read == nullptr ? cudaErrorInvalidValue : p.read(p, in, out, stream);
}

cudaError_t launch(const DsmemPlan& p, const std::uint32_t* chain, double* out, cudaStream_t stream) {
  return p.chase == nullptr ? cudaErrorInvalidValue : p.chase(p, chain, out, stream);
}

double dsmem_expected(const DsmemConfig& c, unsigned block, std::uint32_t seed) {
  if (dsmem_chases(c.variant))
    return static_cast<double>(
        CycleOrder(dsmem_chain_nodes(), kDsmemChaseKey).node(kDsmemChaseSteps % dsmem_chain_nodes()));
  constexpr std::size_t kFloats = kDsmemBytes / 4;
  const std::size_t first = static_cast<std::size_t>(dsmem_target(c, block)) * kFloats;
  double sum = 0;
  for (std::size_t e = first; e < first + kFloats; ++e) sum += pattern_value(e, seed);
  return sum * c.reps;
}

double dsmem_bytes(const DsmemConfig& c, unsigned grid) {
  return dsmem_chases(c.variant) ? 0.0 : static_cast<double>(grid) * c.reps * static_cast<double>(kDsmemBytes);
}

}  // namespace membench
