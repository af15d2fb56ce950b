#include "membench/cuda.hpp"

#include <sstream>

namespace membench {

namespace {
std::string describe(cudaError_t code, const char* call, const char* file, int line) {
  std::ostringstream os;
  os << cudaGetErrorName(code) << " (" << cudaGetErrorString(code) << ") in " << call << " at "
     << file << ':' << line;
  return os.str();
}
}  // namespace

CudaError::CudaError(cudaError_t code, const char* call, const char* file, int line)
    : std::runtime_error(describe(code, call, file, line)), code_(code) {}

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  throw CudaError(code, call, file, line);
}

DeviceAllocation::DeviceAllocation(std::size_t bytes) : bytes_(bytes) {
  if (bytes_ > 0) MEMBENCH_CUDA(cudaMalloc(&ptr_, bytes_));
}

DeviceAllocation::~DeviceAllocation() {
  if (ptr_ != nullptr) cudaFree(ptr_);
}

DeviceAllocation::DeviceAllocation(DeviceAllocation&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceAllocation& DeviceAllocation::operator=(DeviceAllocation&& other) noexcept {
  if (this != &other) {
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

Stream::Stream() { MEMBENCH_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
Stream::~Stream() {
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

Event::Event() { MEMBENCH_CUDA(cudaEventCreate(&event_)); }
Event::~Event() {
  if (event_ != nullptr) cudaEventDestroy(event_);
}

float elapsed_ms(const Event& start, const Event& stop) {
  MEMBENCH_CUDA(cudaEventSynchronize(stop.get()));
  float ms = 0.0f;
  MEMBENCH_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

int visible_devices(std::string* why) {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) {
    if (why != nullptr) *why = std::string(cudaGetErrorName(rc)) + ": " + cudaGetErrorString(rc);
    cudaGetLastError();  // clear, so later calls are not poisoned by this probe
    return 0;
  }
  if (count == 0 && why != nullptr) *why = "cudaGetDeviceCount reported 0 devices";
  return count;
}

}  // namespace membench
