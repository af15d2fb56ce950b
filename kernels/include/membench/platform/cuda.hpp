// CUDA error handling and RAII owners shared by the kernels library, the
// suite and the tests. One macro, MEMBENCH_CUDA, turns a failed runtime call
// into a CudaError carrying the call, file and line.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace membench {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const char* call, const char* file, int line);
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

#define MEMBENCH_CUDA(call)                                                                                         \
  do {                                                                                                              \
    const cudaError_t membench_status_ = (call);                                                                    \
    if (membench_status_ != cudaSuccess) ::membench::throw_cuda_error(membench_status_, #call, __FILE__, __LINE__); \
  } while (0)

// Owns one cudaMalloc allocation. Move-only.
class DeviceAllocation {
 public:
  DeviceAllocation() = default;
  explicit DeviceAllocation(std::size_t bytes);
  ~DeviceAllocation();
  DeviceAllocation(DeviceAllocation&& other) noexcept;
  DeviceAllocation& operator=(DeviceAllocation&& other) noexcept;
  DeviceAllocation(const DeviceAllocation&) = delete;
  DeviceAllocation& operator=(const DeviceAllocation&) = delete;

  void* get() const noexcept { return ptr_; }
  std::size_t bytes() const noexcept { return bytes_; }
  template <class T>
  T* as() const noexcept {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// A typed device array of `count` elements.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : memory_(count * sizeof(T)), count_(count) {}
  T* get() const noexcept { return memory_.as<T>(); }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return memory_.bytes(); }

 private:
  DeviceAllocation memory_;
  std::size_t count_ = 0;
};

class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const noexcept { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// Makes `device` current for a scope (streams, events and launches belong
// to the device current when they are made).
class DeviceScope {
 public:
  explicit DeviceScope(int device);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

class Event {
 public:
  Event();
  ~Event();
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const noexcept { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// Milliseconds between two recorded events, after waiting for `stop`.
float elapsed_ms(const Event& start, const Event& stop);

// Number of visible CUDA devices; 0 (and `why` filled) when none can be used.
// `why` tells "no driver" apart from "driver older than the runtime" and from
// "driver but no device".
int visible_devices(std::string* why = nullptr);

// The reason text of visible_devices, from the error and the two versions
// (cudaDriverGetVersion reports 0 when no driver can be loaded).
std::string explain_no_device(cudaError_t rc, int driver_version, int runtime_version);

// 13000 -> "13.0" (the encoding of cudaDriverGetVersion / cudaRuntimeGetVersion).
std::string cuda_version_string(int version);

// Pinned host memory mapped into the device's address space: kernels write
// it, the host reads it once an event after the kernel has completed.
template <class T>
class MappedBuffer {
 public:
  MappedBuffer() = default;
  explicit MappedBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) {
      MEMBENCH_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&host_), count_ * sizeof(T), cudaHostAllocMapped));
      MEMBENCH_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), host_, 0));
    }
  }
  ~MappedBuffer() {
    if (host_ != nullptr) cudaFreeHost(host_);
  }
  MappedBuffer(MappedBuffer&& other) noexcept
      : host_(std::exchange(other.host_, nullptr)),
        device_(std::exchange(other.device_, nullptr)),
        count_(std::exchange(other.count_, 0)) {}
  MappedBuffer& operator=(MappedBuffer&& other) noexcept {
    std::swap(host_, other.host_);
    std::swap(device_, other.device_);
    std::swap(count_, other.count_);
    return *this;
  }
  MappedBuffer(const MappedBuffer&) = delete;
  MappedBuffer& operator=(const MappedBuffer&) = delete;

  T* host() const noexcept { return host_; }
  T* device() const noexcept { return device_; }
  std::size_t size() const noexcept { return count_; }

 private:
  T* host_ = nullptr;
  T* device_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace membench
