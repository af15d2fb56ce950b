#include "membench/platform/cuda.hpp"

#include <sstream>

namespace membench {

namespace {
std::string describe(cudaError_t code, const char* call, const char* file, int line) {
  std::ostringstream os;
  os << cudaGetErrorName(code) << " (" << cudaGetErrorString(code) << ") in " << call << " at " << file << ':' << line;
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

DeviceScope::DeviceScope(int device) {
  MEMBENCH_CUDA(cudaGetDevice(&previous_));
  MEMBENCH_CUDA(cudaSetDevice(device));
}
DeviceScope::~DeviceScope() { cudaSetDevice(previous_); }

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

std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string explain_no_device(cudaError_t rc, int driver_version, int runtime_version) {
  const std::string code = std::string(" (") + cudaGetErrorName(rc) + ")";
  if (driver_version == 0) return "no NVIDIA driver is installed or loadable (libcuda.so.1 not found)" + code;
  const std::string driver = "the NVIDIA driver supports CUDA " + cuda_version_string(driver_version);
  if (rc == cudaErrorInsufficientDriver || driver_version < runtime_version)
    return driver + ", older than the CUDA " + cuda_version_string(runtime_version) +
           " runtime this build uses; update the driver" + code;
  if (rc == cudaErrorNoDevice || rc == cudaSuccess) return driver + " but sees no GPU" + code;
  return driver + "; " + cudaGetErrorString(rc) + code;
}

int visible_devices(std::string* why) {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc == cudaSuccess && count > 0) return count;
  cudaGetLastError();  // clear, so later calls are not poisoned by this probe
  if (why != nullptr) {
    int driver = 0, runtime = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
    if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = 0;
    *why = explain_no_device(rc, driver, runtime);
  }
  return 0;
}

}  // namespace membench
