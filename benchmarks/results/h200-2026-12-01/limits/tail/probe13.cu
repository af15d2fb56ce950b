// Research probe (not part of membench): does a short-block launch lose ~0.5% to its last wave's tail? membench's
// short-block read (256 threads, 16-byte loads, 16 KiB chunks, block b from chunk b*steps on, float accumulators,
// __maxnreg__ 32, unrolled 2), timed like membench (events around a batch of back-to-back launches), with 8, 32 and
// 128 GiB read per launch and 8 or 32 chunks a block; beside gpu-benches' shape in our harness at 8 and 100 GiB a launch.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int kBlock = 256;
constexpr uint64_t kChunkVectors = kBlock * 4;  // 16 KiB of float4

template <bool CG>
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
  if (s == -1.0) out[0] = s;
}

__global__ void pairs(const double* __restrict__ in, double* __restrict__ out, uint64_t R) {
  double s = 0;
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    const double* p = in + ((blockIdx.x % R) + i * R) * 2048 + threadIdx.x;
    s += p[0] * p[1024];
  }
  if (s == -1.0) out[0] = s;
}

__global__ void fill(float* a, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    a[i] = float((i * 2654435761u) % 1024) * 0.25f;
}

template <class L>
void timeit(const char* what, double bytes, L launch) {
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  launch();
  cudaEventRecord(a); launch(); cudaEventRecord(b); cudaEventSynchronize(b);
  float one; cudaEventElapsedTime(&one, a, b);
  const int k = std::max(2, int(20.0f / one + 0.5f));
  std::vector<float> ms;
  for (int t = 0; t < 11; ++t) {
    cudaEventRecord(a);
    for (int j = 0; j < k; ++j) launch();
    cudaEventRecord(b); cudaEventSynchronize(b);
    float m; cudaEventElapsedTime(&m, a, b); ms.push_back(m / k);
  }
  std::sort(ms.begin(), ms.end());
  printf("%-40s %3d a batch  best %8.1f  median %8.1f GB/s  %s\n", what, k, bytes / ms[0] / 1e6,
         bytes / ms[ms.size() / 2] / 1e6, cudaGetErrorString(cudaGetLastError()));
  fflush(stdout);
}

int main() {
  const size_t cap = size_t(48) << 20;
  void* buf; cudaMalloc(&buf, cap);
  fill<<<1024, 256>>>((float*)buf, cap / 4);
  double* out; cudaMalloc(&out, 8);
  cudaFuncSetAttribute(rd<false>, cudaFuncAttributePreferredSharedMemoryCarveout, 0);
  cudaFuncSetAttribute(rd<true>, cudaFuncAttributePreferredSharedMemoryCarveout, 0);
  for (size_t kib : {16896, 30720, 33792, 36864, 40448}) {
    const uint64_t C = kib / 16;
    for (int cg : {0, 1})
      for (uint64_t steps : {8, 32})
        for (int gib : {8, 32, 128}) {
          if (steps == 32 && gib == 128) continue;
          const double bytes = double(uint64_t(gib) << 30);
          const unsigned grid = unsigned(bytes / 16384 / steps);
          char what[80];
          snprintf(what, sizeof what, "%6zu KiB %s steps %2d, %3d GiB a launch", kib, cg ? "cg" : "ca", int(steps), gib);
          if (cg) timeit(what, bytes, [&] { rd<true><<<grid, kBlock>>>((const float4*)buf, out, C, steps); });
          else timeit(what, bytes, [&] { rd<false><<<grid, kBlock>>>((const float4*)buf, out, C, steps); });
        }
    const uint64_t R = kib / 512;
    for (unsigned blocks : {16384u, 200000u}) {
      char what[80];
      snprintf(what, sizeof what, "%6zu KiB gpu-benches shape, %6u blocks", kib, blocks);
      timeit(what, double(blocks) * 512 * 1024, [&] { pairs<<<blocks, 1024>>>((const double*)buf, out, R); });
    }
  }
}
