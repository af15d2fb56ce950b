// Inputs and poison. Every experiment reads a deterministic, non-trivial
// pattern (never zeros) and writes into a poisoned output, so an element that
// a kernel forgot to write can never pass for a right one.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define MEMBENCH_HOST_DEVICE __host__ __device__
#else
#define MEMBENCH_HOST_DEVICE
#endif

namespace membench {

// Element i of the input pattern: a hashed multiple of 1/4 in [1, 256.75].
// Doubling it, or adding multiples of 1/2 to it, is exact in float, so
// device results compare bit for bit with the host reference.
MEMBENCH_HOST_DEVICE inline float pattern_value(std::uint64_t i, std::uint32_t seed) {
  std::uint32_t h = static_cast<std::uint32_t>(i) * 0x9E3779B1u;
  h ^= static_cast<std::uint32_t>(i >> 32) * 0x85EBCA77u ^ seed;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return 1.0f + static_cast<float>(h & 0x3FFu) * 0.25f;
}

// Small positive integers (1..16) hashed from i, so no short period: lanes
// that read different words almost always read different values, and a
// wrong address cannot verify by luck. Sums of 2^20 of them stay exact.
MEMBENCH_HOST_DEVICE inline float small_int_value(std::uint64_t i) {
  std::uint32_t h = static_cast<std::uint32_t>(i) * 0x9E3779B1u ^ static_cast<std::uint32_t>(i >> 32);
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  return static_cast<float>(1u + (h & 0xFu));
}

// Poison: every byte 0xFF, which makes every float a NaN.
inline constexpr int kPoisonByte = 0xFF;

template <class T>
inline bool is_poison(T x) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &x, sizeof(T));
  for (unsigned char b : bytes)
    if (b != kPoisonByte) return false;
  return true;
}

template <class T = float>
inline T poison_value() {
  unsigned char bytes[sizeof(T)];
  std::memset(bytes, kPoisonByte, sizeof(T));
  T x{};
  std::memcpy(&x, bytes, sizeof(T));
  return x;
}

// data[i] = pattern_value(i, seed) for i < n (the same values as doubles in the second form).
cudaError_t launch_fill_pattern(float* data, std::size_t n, std::uint32_t seed, cudaStream_t stream);
cudaError_t launch_fill_pattern(double* data, std::size_t n, std::uint32_t seed, cudaStream_t stream);

// Fills `bytes` bytes with kPoisonByte.
cudaError_t launch_poison(void* data, std::size_t bytes, cudaStream_t stream);

}  // namespace membench
