// Async-copy experiment: a tile-by-tile pass over n floats through shared
// memory, loaded five ways (plain loads, cg::memcpy_async, a multi-stage
// cuda::pipeline, Hopper's bulk-copy engine, and its tensor-memory
// accelerator copying 2-D boxes), with a compute phase of adjustable
// intensity so the suite shows when overlap pays.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "membench/platform/int_list.hpp"
#include "membench/platform/kernel_shape.hpp"

namespace membench {

enum class AsyncVariant { sync, memcpy_async, pipeline, bulk, tma };
inline constexpr auto kAsyncVariants = enum_names<AsyncVariant>("sync", "memcpy_async", "pipeline", "bulk", "tma");

inline constexpr int kAsyncBlock = 256;
using AsyncTiles = IntList<512, 1024, 2048, 4096>;  // floats per tile
using AsyncStages = IntList<1, 2, 3, 4, 6, 8>;
inline constexpr int kAsyncMaxFlops = 65536;
// A launch that is not persistent gives each block kAsyncShortTiles tiles
// (block b takes tiles b, b + grid, ...): enough for a block's stages to
// overlap its own copies and to spread its setup (barriers, the first copy's
// wait, the tensor map's fetch) over several tiles, while the blocks still
// start in order and sweep the array front to back. The most blocks such a
// launch takes is kAsyncMaxGrid; past it the blocks take more tiles each.
inline constexpr std::size_t kAsyncShortTiles = 2;
inline constexpr std::size_t kAsyncMaxGrid = 0x7fffffff;

// tma views the n floats as a row-major matrix kTmaRowFloats wide and copies
// a tile as one box of kTmaBoxCols columns x (tile / kTmaBoxCols) rows: 1 KiB
// (the widest box row a tensor map allows, 256 elements) from each of
// several rows 16 KiB apart, which the tensor map (cuTensorMapEncodeTiled)
// describes and the copy engine gathers; n must be a whole number of box rows.
inline constexpr int kTmaRowFloats = 4096;
inline constexpr int kTmaBoxCols = 256;

// The compute phase: flops / 2 dependent FMAs per element, v = fma(v, a, b)
// with a = 1 and b = 1/2 passed at run time (so the compiler must issue every
// FFMA), which keeps the result exact: out = in + flops / 4.
inline constexpr float kAsyncFmaA = 1.0f;
inline constexpr float kAsyncFmaB = 0.5f;

struct AsyncConfig {
  AsyncVariant variant = AsyncVariant::sync;
  std::size_t n = 0;  // floats
  int tile = 1024;    // floats per tile
  int stages = 1;     // pipeline and bulk only; sync and memcpy_async are single-stage
  int flops = 0;      // floating-point operations per element (even)
  // true: a resident grid, each block taking tiles b, b + grid, ... to the
  // end; false: short blocks of kAsyncShortTiles tiles, as many as that
  // takes, started in order as blocks finish.
  bool persistent = true;
};

bool async_multi_stage(AsyncVariant v);

// Whether the suite instantiates this tile / stage count / flops value;
// otherwise `why` says what is allowed.
bool async_config_supported(const AsyncConfig& c, std::string* why);

// Whether the variant can run on the current device with this binary: bulk
// and tma need a compute capability >= 9.0 device and a kernel body compiled
// for sm_90 or newer (not older PTX that the driver JIT-compiled); tma also
// the driver's cuTensorMapEncodeTiled.
bool async_variant_available(AsyncVariant v, std::string* why);

// Threads per block: kAsyncBlock compute; bulk and tma add a producer warp
// that issues the copies.
unsigned async_block(AsyncVariant v);

// Dynamic shared memory one block uses.
std::size_t async_smem_bytes(const AsyncConfig& c);

// The grid for `tiles` tiles when `resident` blocks fit on the GPU at once:
// persistent, the resident grid (fewer blocks where there are fewer tiles);
// otherwise a short block per kAsyncShortTiles tiles, kAsyncMaxGrid at most.
unsigned async_grid(std::size_t tiles, unsigned resident, bool persistent);

// A launch worked out once: the kernel and its grid (async_grid), its typed launch, and for tma the tensor map of the
// input it reads (a CUtensorMap, encoded once).
struct AsyncPlan {
  using Run = cudaError_t (*)(const AsyncPlan&, const float*, float*, cudaStream_t);
  AsyncConfig config;
  KernelShape shape;
  alignas(64) unsigned char tensor_map[128];
  Run run = nullptr;
};

// Plans launches that read `in` (tma's tensor map points at it; with
// nullptr, a plan for its shape alone):
// cudaErrorInvalidValue for a config not built (before any CUDA call),
// cudaErrorNotSupported where the variant cannot run here.
cudaError_t plan(const AsyncConfig& c, const float* in, AsyncPlan* plan);
// out[i] = async_reference(in[i], flops) for i < n; any n >= 1. `in` must be
// the pointer the plan was made for; `in` and `out` 16-byte aligned (as
// cudaMalloc's are: threads move 16-byte groups, the copy engines 16-byte units).
cudaError_t launch(const AsyncPlan& p, const float* in, float* out, cudaStream_t stream);

// Host reference (closed form) and the literal FMA chain it stands for.
float async_reference(float x, int flops);
float async_reference_chain(float x, int flops);

// Useful bytes (each element read and written once) and flops per launch.
double async_bytes(const AsyncConfig& c);
double async_flops(const AsyncConfig& c);

}  // namespace membench
