// The constant-memory kernels and launcher. See constant.hpp.
#include <algorithm>

#include "membench/constant.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace kernels {

__constant__ float constant_table[kConstantMaxWords];

// The word of round r for a lane whose share of the address is lane_part; mask: words - 1.
__device__ __forceinline__ unsigned table_word(int round, unsigned lane_part, unsigned mask) {
  return (97u * static_cast<unsigned>(round) + lane_part) & mask;
}

__global__ void constant_read(float* __restrict__ out, int addresses, int rounds, unsigned mask) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const unsigned lane_part = 8u * ((threadIdx.x % 32u) % static_cast<unsigned>(addresses));
  float sum = 0.0f;
  for (int r = 0; r < rounds; ++r) sum += constant_table[table_word(r, lane_part, mask)];
  out[t] = sum;
}

__global__ void constant_global_read(const float* __restrict__ table, float* __restrict__ out, int addresses,
                                     int rounds, unsigned mask) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const unsigned lane_part = 8u * ((threadIdx.x % 32u) % static_cast<unsigned>(addresses));
  float sum = 0.0f;
  for (int r = 0; r < rounds; ++r) sum += table[table_word(r, lane_part, mask)];
  out[t] = sum;
}

}  // namespace kernels

cudaError_t plan(const ConstantConfig& c, ConstantPlan* p) {
  const bool power_of_two = c.words != 0 && (c.words & (c.words - 1)) == 0;
  if (c.addresses < 1 || c.addresses > 32 || c.rounds < 1 || c.rounds > kConstantMaxRounds || !power_of_two ||
      c.words < kConstantMinWords || c.words > kConstantMaxWords)
    return cudaErrorInvalidValue;
  p->config = c;
  const bool constant = c.space == ConstantSpace::constant;
  unsigned grid = 0;
  const cudaError_t rc = constant ? detail::resident_grid(kernels::constant_read, kConstantBlock, 0, &grid)
                                  : detail::resident_grid(kernels::constant_global_read, kConstantBlock, 0, &grid);
  if (rc != cudaSuccess) return rc;
  p->shape = constant ? detail::shape_of(kernels::constant_read, grid, kConstantBlock)
                      : detail::shape_of(kernels::constant_global_read, grid, kConstantBlock);
  p->threads = std::size_t{grid} * kConstantBlock;
  return cudaSuccess;
}

cudaError_t bind_table(const ConstantPlan& p, const float* table, cudaStream_t stream) {
  if (p.config.space != ConstantSpace::constant) return cudaSuccess;
  return cudaMemcpyToSymbolAsync(kernels::constant_table, table, p.config.words * sizeof(float), 0,
                                 cudaMemcpyDeviceToDevice, stream);
}

cudaError_t launch(const ConstantPlan& p, const float* table, float* out, cudaStream_t stream) {
  if (p.threads == 0) return cudaErrorInvalidValue;
  const auto mask = static_cast<unsigned>(p.config.words - 1);
  const ConstantConfig& c = p.config;
  if (c.space == ConstantSpace::constant)
    kernels::constant_read<<<p.shape.grid, p.shape.block, 0, stream>>>(out, c.addresses, c.rounds, mask);
  else
    kernels::constant_global_read<<<p.shape.grid, p.shape.block, 0, stream>>>(table, out, c.addresses, c.rounds, mask);
  return cudaGetLastError();
}

float constant_reference(const ConstantConfig& c, std::size_t thread, const float* table) {
  const int lane = static_cast<int>(thread % kConstantBlock % 32);
  float sum = 0.0f;
  for (int r = 0; r < c.rounds; ++r) sum += table[constant_word(c, r, lane)];
  return sum;
}

double constant_bytes(const ConstantConfig& c, std::size_t threads) {
  return 4.0 * static_cast<double>(threads) * (c.rounds + 1.0);
}

int constant_sectors_per_request(const ConstantConfig& c) { return c.addresses; }

int constant_serialization(const ConstantConfig& c) { return c.space == ConstantSpace::constant ? c.addresses : 1; }

double constant_model_bytes_per_second(const ConstantConfig& c, int sm_count, double sm_clock_hz) {
  const int clocks = c.space == ConstantSpace::constant ? c.addresses : (c.addresses + 3) / 4;
  return sm_count * sm_clock_hz * 128.0 / clocks;
}

}  // namespace membench
