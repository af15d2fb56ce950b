// The async-copy experiment's kernels and launcher. See async.hpp.
//
// Every kernel walks the tiles of [0, n) grid-stride: block b takes tiles
// b, b + grid, b + 2 grid, ... Its j-th tile is `block_tile(j)`.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>

#include <cuda.h>  // CUtensorMap (types only: the driver is reached through the runtime's entry point)
#include <cudaTypedefs.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda/ptx>
#include <string>

#include "async_tiles.cuh"
#include "float_vector.cuh"
#include "membench/async.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace kernels {

namespace cg = cooperative_groups;

// Plain loads into shared memory, barrier, compute, barrier.
template <int TILE>
__global__ void async_sync(const float* __restrict__ in, float* __restrict__ out, std::size_t n, int fmas, float a,
                           float b) {
  extern __shared__ __align__(128) float smem[];
  constexpr int W = kAsyncWidth<TILE>;
  using V = typename FloatVector<W>::type;
  const std::size_t mine = tiles_of_block<TILE>(n);
  for (std::size_t j = 0; j < mine; ++j) {
    const TileSpan t = block_tile<TILE>(j, n);
#pragma unroll
    for (int g = 0; g < TILE / kAsyncBlock / W; ++g) {
      const int e = (threadIdx.x + g * kAsyncBlock) * W;
      if (e + W <= t.count) {
        *reinterpret_cast<V*>(smem + e) = *reinterpret_cast<const V*>(in + t.base + e);
      } else {
        for (int q = 0; q < W && e + q < t.count; ++q) smem[e + q] = in[t.base + e + q];
      }
    }
    __syncthreads();
    compute_tile<TILE>(smem, in + t.base, out + t.base, t.count, t.count, fmas, a, b);
    __syncthreads();
  }
}

// The single-stage version: the block copies a tile with
// cg::memcpy_async, waits for it, computes.
template <int TILE>
__global__ void async_memcpy_async(const float* __restrict__ in, float* __restrict__ out, std::size_t n, int fmas,
                                   float a, float b) {
  extern __shared__ __align__(128) float smem[];
  auto block = cg::this_thread_block();
  const std::size_t mine = tiles_of_block<TILE>(n);
  for (std::size_t j = 0; j < mine; ++j) {
    const TileSpan t = block_tile<TILE>(j, n);
    if (t.count == TILE)
      cg::memcpy_async(block, smem, in + t.base, cuda::aligned_size_t<16>(sizeof(float) * TILE));
    else
      cg::memcpy_async(block, smem, in + t.base, sizeof(float) * t.count);
    cg::wait(block);
    compute_tile<TILE>(smem, in + t.base, out + t.base, t.count, t.count, fmas, a, b);
    block.sync();
  }
}

// One thread's share of a tile copy: 16-byte pieces threadIdx.x,
// threadIdx.x + kAsyncBlock, ... each an async copy committed to `pipe`. The
// last piece of a ragged tile may be shorter.
__device__ __forceinline__ void copy_my_pieces(float* buffer, const float* __restrict__ src, int count,
                                               cuda::pipeline<cuda::thread_scope_thread>& pipe) {
  for (int piece = threadIdx.x; piece * 4 < count; piece += kAsyncBlock) {
    const int first = piece * 4;
    if (first + 4 <= count)
      cuda::memcpy_async(buffer + first, src + first, cuda::aligned_size_t<16>(16), pipe);
    else
      cuda::memcpy_async(buffer + first, src + first, sizeof(float) * (count - first), pipe);
  }
}

// cuda::pipeline with STAGES buffers: while tile i is computed, the copies of
// tiles i + 1 .. i + STAGES - 1 are in flight; consumer_wait waits only for
// the stage being consumed. The pipeline is thread-scoped: each thread
// commits its pieces of a tile as one stage (cp.async groups), and a block
// barrier after consumer_wait makes every thread's pieces visible. Threads
// commit a stage for every tile, empty past the end, so all agree on which
// stage is the oldest.
//
// Why not the block-scoped pipeline (pipeline_shared_state, stages completing
// on mbarriers)? On the H200, compute-sanitizer 13.0 synccheck reports
// "Missing wait" on its stage barriers and aborts the kernel (seen with one
// and with two stages); the thread-scoped form is synccheck-clean and issues
// the same 16-byte cp.async copies.
template <int TILE, int STAGES>
__global__ void async_pipeline(const float* __restrict__ in, float* __restrict__ out, std::size_t n, int fmas, float a,
                               float b) {
  extern __shared__ __align__(128) float smem[];
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  const std::size_t mine = tiles_of_block<TILE>(n);

  auto fetch = [&](std::size_t j) {
    pipe.producer_acquire();
    if (j < mine) {
      const TileSpan t = block_tile<TILE>(j, n);
      copy_my_pieces(smem + (j % STAGES) * TILE, in + t.base, t.count, pipe);
    }
    pipe.producer_commit();
  };

  for (std::size_t j = 0; j + 1 < STAGES; ++j) fetch(j);
  for (std::size_t i = 0; i < mine; ++i) {
    fetch(i + STAGES - 1);  // into the buffer computed last iteration
    pipe.consumer_wait();   // my pieces of tile i have landed
    __syncthreads();        // everyone's have
    const TileSpan t = block_tile<TILE>(i, n);
    compute_tile<TILE>(smem + (i % STAGES) * TILE, in + t.base, out + t.base, t.count, t.count, fmas, a, b);
    pipe.consumer_release();
    __syncthreads();  // buffer i % STAGES is free for the copy issued next iteration
  }
}

// Hopper's bulk-copy engine: cp.async.bulk copies a whole tile (its
// 16-byte-aligned part) into the buffer; the last (< 16-byte) part of a
// ragged final tile is read straight from global memory.
template <int TILE, int STAGES>
__global__ void __launch_bounds__(kAsyncBlock + 32)
    async_bulk(const float* __restrict__ in, float* __restrict__ out, std::size_t n, int fmas, float a, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(128) float smem[];
  __shared__ __align__(8) std::uint64_t full[STAGES], empty[STAGES];
  auto issue = [&](std::size_t j, int s) {
    const TileSpan t = block_tile<TILE>(j, n);
    const std::uint32_t bytes = static_cast<std::uint32_t>(t.count / 4 * 4 * sizeof(float));
    (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                               &full[s], bytes);
    if (bytes > 0)
      cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, smem + s * TILE, in + t.base, bytes,
                               &full[s]);
  };
  auto consume = [&](std::size_t i, int s) {
    const TileSpan t = block_tile<TILE>(i, n);
    compute_tile<TILE>(smem + s * TILE, in + t.base, out + t.base, t.count, t.count / 4 * 4, fmas, a, b);
  };
  producer_consumer<STAGES>(tiles_of_block<TILE>(n), full, empty, issue, consume);
#elif defined(__CUDA_ARCH__)
  __trap();  // built without sm_90 code; the host refuses to launch this
#endif
}

// The tensor-memory accelerator: the same schedule as async_bulk, but each
// copy is one 2-D box of the matrix view (see async.hpp), addressed by its
// coordinates through the tensor map; the copy engine gathers the box's row
// pieces. Tiles are numbered along the rows of boxes: kTmaRowFloats /
// kTmaBoxCols tiles side by side make one band of TILE / kTmaBoxCols rows.
// A box's elements lie on several rows, so each 16-byte group has an address
// of its own, which the compiler would hold in registers through the compute
// phase; the launch bounds cap the registers so that as many blocks stay
// resident as bulk's (7 at tiles up to 1024 floats, 5 above). The body is
// sm_90 only, so older targets get no such bound.
template <int TILE>
constexpr int tma_min_blocks() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1200
  return 1536 / (kAsyncBlock + 32);  // sm_120's SM holds 1536 threads, not 2048
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return TILE <= 1024 ? 7 : 5;
#else
  return 1;
#endif
}

template <int TILE, int STAGES>
__global__ void __launch_bounds__(kAsyncBlock + 32, tma_min_blocks<TILE>())
    async_tma(const float* __restrict__ in, float* __restrict__ out, std::size_t n, int fmas, float a, float b,
              const __grid_constant__ CUtensorMap map) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(128) float smem[];
  __shared__ __align__(8) std::uint64_t full[STAGES], empty[STAGES];
  constexpr int kRows = TILE / kTmaBoxCols;
  constexpr int kTilesPerBand = kTmaRowFloats / kTmaBoxCols;
  auto tile_of = [&](std::size_t j) { return blockIdx.x + j * gridDim.x; };
  auto issue = [&](std::size_t j, int s) {
    const std::size_t tile = tile_of(j);
    const std::int32_t coords[2] = {static_cast<std::int32_t>(tile % kTilesPerBand * kTmaBoxCols),
                                    static_cast<std::int32_t>(tile / kTilesPerBand * kRows)};
    (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                               &full[s], TILE * sizeof(float));
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, smem + s * TILE, &map, coords,
                                    &full[s]);
  };
  auto consume = [&](std::size_t i, int s) {
    const std::size_t tile = tile_of(i);
    const std::size_t origin =
        tile / kTilesPerBand * kRows * static_cast<std::size_t>(kTmaRowFloats) + tile % kTilesPerBand * kTmaBoxCols;
    compute_tile<TILE>(smem + s * TILE, in + origin, out + origin, TILE, TILE, fmas, a, b, BoxRows{});
  };
  producer_consumer<STAGES>(tiles_of_block<TILE>(n), full, empty, issue, consume);
#elif defined(__CUDA_ARCH__)
  __trap();  // built without sm_90 code; the host refuses to launch this
#endif
}

}  // namespace kernels

namespace {

static_assert(sizeof(CUtensorMap) == sizeof(AsyncPlan::tensor_map), "AsyncPlan holds a CUtensorMap");

// The typed launch of one variant, tile and stage count.
template <AsyncVariant V, int TILE, int STAGES>
cudaError_t run_async(const AsyncPlan& p, const float* in, float* out, cudaStream_t s) {
  if (p.config.n == 0) return cudaSuccess;
  const int fmas = p.config.flops / 2;
  const std::size_t n = p.config.n, smem = p.shape.dynamic_smem;
  const unsigned grid = p.shape.grid, block = p.shape.block;
  if constexpr (V == AsyncVariant::sync) {
    kernels::async_sync<TILE><<<grid, block, smem, s>>>(in, out, n, fmas, kAsyncFmaA, kAsyncFmaB);
  } else if constexpr (V == AsyncVariant::memcpy_async) {
    kernels::async_memcpy_async<TILE><<<grid, block, smem, s>>>(in, out, n, fmas, kAsyncFmaA, kAsyncFmaB);
  } else if constexpr (V == AsyncVariant::pipeline) {
    kernels::async_pipeline<TILE, STAGES><<<grid, block, smem, s>>>(in, out, n, fmas, kAsyncFmaA, kAsyncFmaB);
  } else if constexpr (V == AsyncVariant::bulk) {
    kernels::async_bulk<TILE, STAGES><<<grid, block, smem, s>>>(in, out, n, fmas, kAsyncFmaA, kAsyncFmaB);
  } else {
    CUtensorMap map;
    std::memcpy(&map, p.tensor_map, sizeof map);
    kernels::async_tma<TILE, STAGES><<<grid, block, smem, s>>>(in, out, n, fmas, kAsyncFmaA, kAsyncFmaB, map);
  }
  return cudaGetLastError();
}

template <int TILE, int STAGES>
std::pair<const void*, AsyncPlan::Run> kernel_of(AsyncVariant v) {
  switch (v) {
    case AsyncVariant::sync:
      return {reinterpret_cast<const void*>(kernels::async_sync<TILE>), run_async<AsyncVariant::sync, TILE, STAGES>};
    case AsyncVariant::memcpy_async:
      return {reinterpret_cast<const void*>(kernels::async_memcpy_async<TILE>),
              run_async<AsyncVariant::memcpy_async, TILE, STAGES>};
    case AsyncVariant::pipeline:
      return {reinterpret_cast<const void*>(kernels::async_pipeline<TILE, STAGES>),
              run_async<AsyncVariant::pipeline, TILE, STAGES>};
    case AsyncVariant::bulk:
      return {reinterpret_cast<const void*>(kernels::async_bulk<TILE, STAGES>),
              run_async<AsyncVariant::bulk, TILE, STAGES>};
    case AsyncVariant::tma:
      return {reinterpret_cast<const void*>(kernels::async_tma<TILE, STAGES>),
              run_async<AsyncVariant::tma, TILE, STAGES>};
  }
  return {nullptr, nullptr};
}

// The kernel of this variant, tile and stage count (single-stage variants
// ignore c.stages), and its typed launch.
std::pair<const void*, AsyncPlan::Run> select_kernel(const AsyncConfig& c) {
  const int stages = async_multi_stage(c.variant) ? c.stages : 1;
  const std::pair<const void*, AsyncPlan::Run> none{nullptr, nullptr};
  return AsyncTiles::dispatch(
      c.tile,
      [&](auto tile) {
        return AsyncStages::dispatch(
            stages, [&](auto st) { return kernel_of<decltype(tile)::value, decltype(st)::value>(c.variant); }, none);
      },
      none);
}

// cuTensorMapEncodeTiled, from the driver the runtime has loaded (so the
// binary needs no libcuda at link or load time); nullptr if the driver has none.
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const auto encoder = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      fn = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  return encoder;
}

// The tensor map of `in` as the matrix view, with boxes of this tile. No L2
// promotion: a box row is already 1 KiB of consecutive bytes, and promoting
// its reads to 256-byte requests made the copy slower, not faster.
cudaError_t tensor_map(const AsyncConfig& c, const float* in, CUtensorMap* map) {
  const PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder();
  if (encode == nullptr) return cudaErrorNotSupported;
  const cuuint64_t dims[2] = {kTmaRowFloats, c.n / kTmaRowFloats};
  const cuuint64_t row_bytes[1] = {kTmaRowFloats * sizeof(float)};
  const cuuint32_t box[2] = {kTmaBoxCols, static_cast<cuuint32_t>(c.tile / kTmaBoxCols)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult rc = encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(in), dims, row_bytes, box,
                             element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                             CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return rc == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

bool needs_sm90(AsyncVariant v) { return v == AsyncVariant::bulk || v == AsyncVariant::tma; }

}  // namespace

unsigned async_block(AsyncVariant v) { return needs_sm90(v) ? kAsyncBlock + 32 : kAsyncBlock; }

bool async_variant_available(AsyncVariant v, std::string* why) {
  if (v == AsyncVariant::bulk)
    return sm90_kernel_runs(reinterpret_cast<const void*>(kernels::async_bulk<1024, 1>), "the bulk-copy engine", "bulk",
                            why);
  if (v != AsyncVariant::tma) return true;
  if (!sm90_kernel_runs(reinterpret_cast<const void*>(kernels::async_tma<1024, 1>), "the tensor-memory accelerator",
                        "tma", why))
    return false;
  if (tensor_map_encoder() != nullptr) return true;
  if (why != nullptr) *why = "the CUDA driver offers no cuTensorMapEncodeTiled";
  return false;
}

cudaError_t plan(const AsyncConfig& c, const float* in, AsyncPlan* p) {
  if (!async_config_supported(c, nullptr)) return cudaErrorInvalidValue;
  if (needs_sm90(c.variant) && !async_variant_available(c.variant, nullptr)) return cudaErrorNotSupported;
  const auto [kernel, run] = select_kernel(c);
  if (kernel == nullptr) return cudaErrorInvalidValue;
  const std::size_t smem = async_smem_bytes(c);
  cudaError_t rc = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (rc != cudaSuccess) return rc;
  unsigned grid = 0;
  const unsigned block = async_block(c.variant);
  rc = detail::resident_grid(kernel, block, smem, &grid);
  if (rc != cudaSuccess) return rc;
  grid =
      async_grid(std::max<std::size_t>(1, detail::ceil_div(c.n, static_cast<std::size_t>(c.tile))), grid, c.persistent);
  p->config = c;
  p->shape = detail::shape_of(kernel, grid, block, smem);
  p->run = run;
  std::memset(p->tensor_map, 0, sizeof p->tensor_map);
  if (c.variant == AsyncVariant::tma && c.n > 0 && in != nullptr) {
    CUtensorMap map{};
    if ((rc = tensor_map(c, in, &map)) != cudaSuccess) return rc;
    std::memcpy(p->tensor_map, &map, sizeof map);
  }
  return cudaSuccess;
}

cudaError_t launch(const AsyncPlan& p, const float* in, float* out, cudaStream_t stream) {
  return p.run == nullptr ? cudaErrorInvalidValue : p.run(p, in, out, stream);
}

}  // namespace membench
