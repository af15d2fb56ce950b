// The constant-memory kernels and launcher. See constant.hpp.
#include <algorithm>

#include "membench/constant.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace kernels {

__constant__ float constant_table[kConstantFloats];

__device__ __forceinline__ unsigned table_word(int round, unsigned lane_part) {
  return (97u * static_cast<unsigned>(round) + lane_part) % kConstantFloats;
}

__global__ void constant_read(float* __restrict__ out, int addresses, int rounds) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const unsigned lane_part = 129u * ((threadIdx.x % 32u) % static_cast<unsigned>(addresses));
  float sum = 0.0f;
  for (int r = 0; r < rounds; ++r) sum += constant_table[table_word(r, lane_part)];
  out[t] = sum;
}

__global__ void constant_global_read(const float* __restrict__ table, float* __restrict__ out, int addresses,
                                     int rounds) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const unsigned lane_part = 129u * ((threadIdx.x % 32u) % static_cast<unsigned>(addresses));
  float sum = 0.0f;
  for (int r = 0; r < rounds; ++r) sum += table[table_word(r, lane_part)];
  out[t] = sum;
}

}  // namespace kernels

cudaError_t plan(const ConstantConfig& c, ConstantPlan* p) {
  if (c.addresses < 1 || c.addresses > 32 || c.rounds < 1 || c.rounds > kConstantMaxRounds)
    return cudaErrorInvalidValue;
  p->config = c;
  unsigned grid = 0;
  const cudaError_t rc = c.space == ConstantSpace::constant
                             ? detail::resident_grid(kernels::constant_read, kConstantBlock, 0, &grid)
                             : detail::resident_grid(kernels::constant_global_read, kConstantBlock, 0, &grid);
  if (rc != cudaSuccess) return rc;
  p->shape = c.space == ConstantSpace::constant ? detail::shape_of(kernels::constant_read, grid, kConstantBlock)
                                                : detail::shape_of(kernels::constant_global_read, grid, kConstantBlock);
  p->threads = std::size_t{grid} * kConstantBlock;
  return cudaSuccess;
}

cudaError_t bind_table(const ConstantPlan& p, const float* table) {
  if (p.config.space != ConstantSpace::constant) return cudaSuccess;
  return cudaMemcpyToSymbol(kernels::constant_table, table, kConstantFloats * sizeof(float), 0,
                            cudaMemcpyDeviceToDevice);
}

cudaError_t launch(const ConstantPlan& p, const float* table, float* out, cudaStream_t stream) {
  if (p.threads == 0) return cudaErrorInvalidValue;
  if (p.config.space == ConstantSpace::constant)
    kernels::constant_read<<<p.shape.grid, p.shape.block, 0, stream>>>(out, p.config.addresses, p.config.rounds);
  else
    kernels::constant_global_read<<<p.shape.grid, p.shape.block, 0, stream>>>(table, out, p.config.addresses,
                                                                              p.config.rounds);
  return cudaGetLastError();
}

float constant_reference(const ConstantConfig& c, std::size_t thread, const float* table) {
  const int lane = static_cast<int>(thread % kConstantBlock % 32);
  float sum = 0.0f;
  for (int r = 0; r < c.rounds; ++r) sum += table[constant_word(r, lane, c.addresses)];
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
