// Research probe (not part of membench): why does membench's short-block read (its own plan/launch, linked from
// membench_kernels) time ~1% under the same loop in a probe (l2_probe13)? Times, at 30-40 MiB, in one harness (events
// around batches of back-to-back launches): membench's launch at 8/32/128 GiB a launch, batches of 22 or of 2 with a
// small kernel between; the probe's loop on membench's buffer, without and with membench's block sum at the end.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cub/block/block_reduce.cuh>
#include "membench/hierarchy.hpp"
#include "membench/pattern.hpp"

using namespace membench;
constexpr int kBlock = 256;
constexpr uint64_t kChunkVectors = kBlock * 4;

template <bool CG, bool SUM>
__global__ void __maxnreg__(32) rd(const float4* __restrict__ in, double* __restrict__ out, uint64_t chunks, uint64_t steps) {
  uint64_t chunk = uint64_t(blockIdx.x) * steps % chunks;
  float acc[4] = {};
#pragma unroll 2
  for (uint64_t i = 0; i < steps; ++i) {
    const float4* base = in + chunk * kChunkVectors + threadIdx.x;
    float4 x[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) x[k] = CG ? __ldcg(base + k * kBlock) : base[k * kBlock];
#pragma unroll
    for (int k = 0; k < 4; ++k) acc[k] += x[k].x + x[k].y + x[k].z + x[k].w;
    if (++chunk == chunks) chunk = 0;
  }
  const double s = double(acc[0]) + acc[1] + acc[2] + acc[3];
  if constexpr (SUM) {
    using Reduce = cub::BlockReduce<double, kBlock>;
    __shared__ typename Reduce::TempStorage scratch;
    const double t = Reduce(scratch).Sum(s);
    if (threadIdx.x == 0) out[blockIdx.x] = t;
  } else {
    if (s == -1.0) out[0] = s;
  }
}
__global__ void tiny(double* p) { if (threadIdx.x == 0 && blockIdx.x == 0) p[0] += 1; }

template <class L>
void timeit(const char* what, double bytes, int per_batch, bool gap, double* scratch, L launch) {
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  launch(); launch(); cudaDeviceSynchronize();
  std::vector<float> ms;
  for (int t = 0; t < 15; ++t) {
    if (gap) tiny<<<132, 32>>>(scratch);
    cudaEventRecord(a);
    for (int j = 0; j < per_batch; ++j) launch();
    cudaEventRecord(b);
    if (gap) tiny<<<132, 32>>>(scratch);
    cudaEventSynchronize(b);
    float m; cudaEventElapsedTime(&m, a, b); ms.push_back(m / per_batch);
  }
  std::sort(ms.begin(), ms.end());
  printf("%-52s best %8.1f  median %8.1f GB/s  %s\n", what, bytes / ms[0] / 1e6, bytes / ms[ms.size() / 2] / 1e6,
         cudaGetErrorString(cudaGetLastError()));
  fflush(stdout);
}

int main() {
  double* out; cudaMalloc(&out, sizeof(double) << 20);
  double* scratch; cudaMalloc(&scratch, 8);
  cudaFuncSetAttribute(rd<false, false>, cudaFuncAttributePreferredSharedMemoryCarveout, 0);
  cudaFuncSetAttribute(rd<false, true>, cudaFuncAttributePreferredSharedMemoryCarveout, 0);
  for (size_t kib : {16896, 30720, 36864, 40448}) {
    const size_t ws = kib << 10;
    float* in; cudaMalloc(&in, ws);
    launch_fill_pattern(in, ws / 4, 1, 0);
    cudaDeviceSynchronize();
    char what[96];
    for (double gib : {8.0, 32.0, 128.0}) {
      BandwidthPlan p;
      BandwidthConfig c{ws, 16, false, gib * (1u << 30), true};
      if (plan(c, &p) != cudaSuccess) { printf("plan failed\n"); return 1; }
      for (int per : {22, 2}) {
        if (gib > 8 && per == 2) continue;
        const int n = gib > 8 ? std::max(2, int(22 * 8 / gib)) : per;
        snprintf(what, sizeof what, "%6zu KiB membench launch %3.0f GiB, %2d a batch%s", kib, gib, n, per == 2 ? " +gap" : "");
        timeit(what, p.coverage.bytes, n, per == 2, scratch, [&] { launch(p, in, out, 0); });
      }
    }
    const uint64_t C = ws / 16384, steps = 8;
    const unsigned grid = unsigned((uint64_t(8) << 30) / 16384 / steps);
    const double bytes = double(uint64_t(8) << 30);
    snprintf(what, sizeof what, "%6zu KiB probe loop, no sum, 22 a batch", kib);
    timeit(what, bytes, 22, false, scratch, [&] { rd<false, false><<<grid, kBlock>>>((const float4*)in, out, C, steps); });
    snprintf(what, sizeof what, "%6zu KiB probe loop + block sum, 22 a batch", kib);
    timeit(what, bytes, 22, false, scratch, [&] { rd<false, true><<<grid, kBlock>>>((const float4*)in, out, C, steps); });
    snprintf(what, sizeof what, "%6zu KiB probe loop + block sum, 2 a batch +gap", kib);
    timeit(what, bytes, 2, true, scratch, [&] { rd<false, true><<<grid, kBlock>>>((const float4*)in, out, C, steps); });
    cudaFree(in);
  }
}
