// Where local/unrolled/array:64's input lies, and whether a row pitch off a power of two makes its rate
// independent of it. The kernel is the case's (each of 2^20 threads reads 64 floats, rows `pitch` floats apart,
// sums them 1024 / 64 times); timed with events, median of 15 launches after 3.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

template <int K>
__global__ void unrolled(const float* __restrict__ in, float* __restrict__ out, std::size_t pitch, int rounds) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float a[K];
#pragma unroll
  for (int k = 0; k < K; ++k) a[k] = in[k * pitch + t];
  float sum = 0.0f;
  for (int r = 0; r < rounds; r += K) {
#pragma unroll
    for (int k = 0; k < K; ++k) sum += a[k];
  }
  out[t] = sum;
}

int main() {
  const std::size_t threads = 1 << 20, K = 64;
  const std::size_t pool_floats = (std::size_t(1) << 30) / 4 + threads * (K + 1) + 4096;
  float *pool, *out;
  cudaMalloc(&pool, pool_floats * 4);
  cudaMalloc(&out, threads * 4);
  cudaMemset(pool, 0, pool_floats * 4);
  cudaFuncAttributes at;
  cudaFuncGetAttributes(&at, unrolled<64>);
  std::printf("registers %d, local %zu\n", at.numRegs, at.localSizeBytes);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto time = [&](const float* in, std::size_t pitch) {
    std::vector<float> ms;
    for (int i = 0; i < 18; ++i) {
      cudaEventRecord(e0);
      unrolled<64><<<threads / 256, 256>>>(in, out, pitch, 1024);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float m;
      cudaEventElapsedTime(&m, e0, e1);
      if (i >= 3) ms.push_back(m);
    }
    std::sort(ms.begin(), ms.end());
    return 4.0 * threads * (K + 1) / (ms[ms.size() / 2] * 1e-3) / 1e9;
  };
  for (std::size_t pad : {0, 32, 1024, 4096 + 32}) {
    std::printf("pad %5zu floats:", pad);
    double lo = 1e30, hi = 0;
    for (std::size_t off_mib = 0; off_mib <= 768; off_mib += 32) {
      const double gbs = time(pool + off_mib * (1 << 20) / 4, threads + pad);
      lo = std::min(lo, gbs), hi = std::max(hi, gbs);
      std::printf(" %.0f", gbs);
    }
    std::printf(" | %.0f .. %.0f GB/s (%.1f%%)\n", lo, hi, 100 * (hi / lo - 1));
  }
  // Allocations of their own after freeing others of several sizes, as a run's earlier cases leave the heap.
  cudaFree(pool);
  std::printf("own allocation after freeing:");
  for (std::size_t before_mib : {0, 8, 64, 256, 1024, 3072}) {
    float* junk = nullptr;
    if (before_mib) cudaMalloc(&junk, before_mib << 20);
    float* in;
    cudaMalloc(&in, threads * K * 4);
    if (junk) cudaFree(junk);
    std::printf(" %zu MiB: %.0f/%.0f", before_mib, time(in, threads), time(in, threads + 32));
    cudaFree(in);
  }
  std::printf("\n");
  return cudaGetLastError() != cudaSuccess;
}
