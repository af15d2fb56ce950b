// Another job on the GPU, for the contention tests: holds a CUDA context on
// device 0, prints "ready", and keeps it until killed or `seconds` pass.
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 60.0;
  if (cudaFree(nullptr) != cudaSuccess) {
    std::fprintf(stderr, "gpu_holder: no CUDA context\n");
    return 1;
  }
  std::printf("ready\n");
  std::fflush(stdout);
  usleep(static_cast<useconds_t>(seconds * 1e6));
  return 0;
}
