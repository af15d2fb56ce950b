// Research probe (not part of membench): the short-block read's end. membench's loop (16-byte loads, float
// accumulators folded into a double) ended three ways: cub::BlockReduce and thread 0 writes (membench today: every
// warp waits at a barrier for the block's slowest); shared-memory atomics, the last warp to finish writes (a barrier
// only at the start); nothing written (no check possible). At 8, 32 and 128 GiB a launch. `check`: the atomic
// ending's sums against cub's on a small launch (for the sanitizers).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>
#include <cub/block/block_reduce.cuh>
#include "membench/pattern.hpp"

constexpr int kBlock = 256;
constexpr uint64_t kChunkVectors = kBlock * 4;

template <int END>  // 0 nothing, 1 cub, 2 atomics
__global__ void __maxnreg__(32) rd(const float4* __restrict__ in, double* __restrict__ out, uint64_t chunks, uint64_t steps) {
  __shared__ double block_total;
  __shared__ unsigned warps_done;
  if constexpr (END == 2) {
    if (threadIdx.x == 0) { block_total = 0; warps_done = 0; }
    __syncthreads();
  }
  uint64_t chunk = uint64_t(blockIdx.x) * steps % chunks;
  double total = 0;
  float acc[4] = {};
#pragma unroll 2
  for (uint64_t i = 0; i < steps; ++i) {
    const float4* base = in + chunk * kChunkVectors + threadIdx.x;
    float4 x[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) x[k] = base[k * kBlock];
#pragma unroll
    for (int k = 0; k < 4; ++k) acc[k] += x[k].x + x[k].y + x[k].z + x[k].w;
    if (++chunk == chunks) chunk = 0;
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) total += acc[k];
  if constexpr (END == 0) {
    if (total == -1.0) out[0] = total;
  } else if constexpr (END == 1) {
    using Reduce = cub::BlockReduce<double, kBlock>;
    __shared__ typename Reduce::TempStorage scratch;
    const double t = Reduce(scratch).Sum(total);
    if (threadIdx.x == 0) out[blockIdx.x] = t;
  } else {
#pragma unroll
    for (int o = 16; o > 0; o /= 2) total += __shfl_xor_sync(0xffffffffu, total, o);
    if (threadIdx.x % 32 == 0) {
      atomicAdd(&block_total, total);
      __threadfence_block();
      if (atomicAdd(&warps_done, 1u) == kBlock / 32 - 1) out[blockIdx.x] = atomicAdd(&block_total, 0.0);
    }
  }
}

template <class L>
void timeit(const char* what, double bytes, int per_batch, L launch) {
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  launch(); launch(); cudaDeviceSynchronize();
  std::vector<float> ms;
  for (int t = 0; t < 15; ++t) {
    cudaEventRecord(a);
    for (int j = 0; j < per_batch; ++j) launch();
    cudaEventRecord(b); cudaEventSynchronize(b);
    float m; cudaEventElapsedTime(&m, a, b); ms.push_back(m / per_batch);
  }
  std::sort(ms.begin(), ms.end());
  printf("%-48s best %8.1f  median %8.1f GB/s  %s\n", what, bytes / ms[0] / 1e6, bytes / ms[ms.size() / 2] / 1e6,
         cudaGetErrorString(cudaGetLastError()));
  fflush(stdout);
}

int main(int argc, char** argv) {
  double* out; cudaMalloc(&out, sizeof(double) << 20);
  if (argc == 2 && !strcmp(argv[1], "check")) {
    const size_t ws = 1 << 20; float* in; cudaMalloc(&in, ws);
    membench::launch_fill_pattern(in, ws / 4, 7, 0);
    const unsigned grid = 264; const uint64_t C = ws / 16384, steps = 8;
    std::vector<double> a(grid), b(grid);
    rd<1><<<grid, kBlock>>>((const float4*)in, out, C, steps);
    cudaMemcpy(a.data(), out, grid * 8, cudaMemcpyDeviceToHost);
    cudaMemset(out, 0xA5, grid * 8);
    rd<2><<<grid, kBlock>>>((const float4*)in, out, C, steps);
    cudaMemcpy(b.data(), out, grid * 8, cudaMemcpyDeviceToHost);
    int bad = 0; for (unsigned i = 0; i < grid; ++i) bad += a[i] != b[i] || a[i] == 0;
    printf("check: %d of %u blocks differ; %s\n", bad, grid, cudaGetErrorString(cudaGetLastError()));
    return bad != 0;
  }
  for (size_t kib : {16896, 30720, 36864, 40448}) {
    const size_t ws = kib << 10;
    float* in; cudaMalloc(&in, ws);
    membench::launch_fill_pattern(in, ws / 4, 1, 0);
    cudaDeviceSynchronize();
    const uint64_t C = ws / 16384, steps = 8;
    for (int gib : {8, 32, 128}) {
      const double bytes = double(uint64_t(gib) << 30);
      const unsigned grid = unsigned(bytes / 16384 / steps);
      double* o = out; if (gib > 8) cudaMalloc(&o, grid * 8.0);
      const int per = std::max(2, 22 * 8 / gib);
      char what[96];
      snprintf(what, sizeof what, "%6zu KiB %3d GiB end: none", kib, gib);
      timeit(what, bytes, per, [&] { rd<0><<<grid, kBlock>>>((const float4*)in, o, C, steps); });
      snprintf(what, sizeof what, "%6zu KiB %3d GiB end: cub", kib, gib);
      timeit(what, bytes, per, [&] { rd<1><<<grid, kBlock>>>((const float4*)in, o, C, steps); });
      snprintf(what, sizeof what, "%6zu KiB %3d GiB end: atomics", kib, gib);
      timeit(what, bytes, per, [&] { rd<2><<<grid, kBlock>>>((const float4*)in, o, C, steps); });
      if (o != out) cudaFree(o);
    }
    cudaFree(in);
  }
}
