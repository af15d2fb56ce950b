// Another job on the GPU, for the contention tests: holds a CUDA context on
// device 0, prints "ready", and keeps it until killed or `seconds` pass.
// With "busy" it also keeps the GPU busy (memsets of 256 MiB, back to back),
// so that NVML's utilisation samples see it.
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 60.0;
  const bool busy = argc > 2 && std::strcmp(argv[2], "busy") == 0;
  if (cudaFree(nullptr) != cudaSuccess) {
    std::fprintf(stderr, "gpu_holder: no CUDA context\n");
    return 1;
  }
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
