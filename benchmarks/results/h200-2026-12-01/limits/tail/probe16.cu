// Research probe (not part of membench): membench's own short-block read (plan/launch linked from membench_kernels)
// with the L1/shared carveout overridden after plan() (membench's choice, 0, 50, 100%), at 8 and 64 GiB a launch,
// both load kinds, timed in batches of back-to-back launches.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>
#include "membench/hierarchy.hpp"
#include "membench/pattern.hpp"

using namespace membench;

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
  printf("%-52s best %8.1f  median %8.1f GB/s  %s\n", what, bytes / ms[0] / 1e6, bytes / ms[ms.size() / 2] / 1e6,
         cudaGetErrorString(cudaGetLastError()));
  fflush(stdout);
}

int main() {
  double* out; cudaMalloc(&out, sizeof(double) << 20);
  for (size_t kib : {16896, 30720, 36864, 40448}) {
    const size_t ws = kib << 10;
    float* in; cudaMalloc(&in, ws);
    launch_fill_pattern(in, ws / 4, 1, 0);
    cudaDeviceSynchronize();
    for (int l1 : {1, 0})
      for (double gib : {8.0, 64.0})
        for (int carve : {-2, 0, 50, 100}) {
          BandwidthPlan p;
          if (plan(BandwidthConfig{ws, 16, false, gib * (1u << 30), l1 == 1}, &p) != cudaSuccess) return 1;
          if (carve >= 0) cudaFuncSetAttribute(p.shape.function, cudaFuncAttributePreferredSharedMemoryCarveout, carve);
          char what[96];
          snprintf(what, sizeof what, "%6zu KiB %s %2.0f GiB carveout %s%d", kib, l1 ? "ca" : "cg", gib,
                   carve < 0 ? "membench " : "", carve < 0 ? 0 : carve);
          timeit(what, p.coverage.bytes, gib > 8 ? 3 : 22, [&] { launch(p, in, out, 0); });
        }
    cudaFree(in);
  }
}
