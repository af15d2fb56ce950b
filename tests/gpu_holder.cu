// Another job on the GPU, for the contention tests: holds a CUDA context on
// device 0, prints "ready", and keeps it until killed or `seconds` pass.
//   (none)  holds the context and does nothing
//   busy    memsets of 256 MiB, back to back, so that NVML's utilisation
//           samples see it
//   load    what a neighbour's training job does to the suite: every SM and
//           the memory busy at once, in kernels of milliseconds each (a
//           stream over 1 GiB with arithmetic on every element), always a
//           few queued, so the suite's own work waits behind it and is
//           time-sliced with it
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

__global__ void load_pass(const float4* __restrict__ in, float4* __restrict__ out, std::size_t n, int rounds) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    float4 v = in[i];
    for (int r = 0; r < rounds; ++r) {
      v.x = fmaf(v.x, 0.999f, 0.001f);
      v.y = fmaf(v.y, 0.999f, 0.002f);
      v.z = fmaf(v.z, 0.999f, 0.003f);
      v.w = fmaf(v.w, 0.999f, 0.004f);
    }
    out[i] = v;
  }
}

bool keep_loaded(double seconds) {
  std::size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) return false;
  const std::size_t bytes = std::min(std::size_t{1} << 30, free_bytes / 8) / sizeof(float4) * sizeof(float4);
  float4 *a = nullptr, *b = nullptr;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) return false;
  if (cudaMemset(a, 0, bytes) != cudaSuccess) return false;
  int sms = 1;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaEvent_t done[4];
  for (auto& e : done)
    if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess) return false;
  const std::size_t n = bytes / sizeof(float4);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (long k = 0; std::chrono::steady_clock::now() < end; ++k) {
    cudaEvent_t& slot = done[k % 4];
    if (k >= 4 && cudaEventSynchronize(slot) != cudaSuccess) return false;  // four launches in flight
    load_pass<<<sms * 8, 256>>>(k % 2 ? b : a, k % 2 ? a : b, n, 64);
    if (cudaGetLastError() != cudaSuccess || cudaEventRecord(slot) != cudaSuccess) return false;
    if (k == 4) {
      std::printf("ready\n");
      std::fflush(stdout);
    }
  }
  return cudaDeviceSynchronize() == cudaSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 60.0;
  const char* mode = argc > 2 ? argv[2] : "";
  if (cudaFree(nullptr) != cudaSuccess) {
    std::fprintf(stderr, "gpu_holder: no CUDA context\n");
    return 1;
  }
  if (std::strcmp(mode, "load") == 0) {
    if (keep_loaded(seconds)) return 0;
    std::fprintf(stderr, "gpu_holder: the load failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  const bool busy = std::strcmp(mode, "busy") == 0;
  void* buffer = nullptr;
  const std::size_t bytes = std::size_t{256} << 20;
  if (busy && cudaMalloc(&buffer, bytes) != cudaSuccess) {
    std::fprintf(stderr, "gpu_holder: cannot allocate 256 MiB\n");
    return 1;
  }
  std::printf("ready\n");
  std::fflush(stdout);
  if (!busy) {
    usleep(static_cast<useconds_t>(seconds * 1e6));
    return 0;
  }
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (int value = 0; std::chrono::steady_clock::now() < end; ++value) {
    for (int i = 0; i < 16; ++i) cudaMemsetAsync(buffer, value & 0xff, bytes);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  }
  return 0;
}
