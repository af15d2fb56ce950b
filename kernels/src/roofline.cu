// The roofline kernels, plan and host reference. See roofline.hpp.
#include <algorithm>
#include <cmath>

#include "membench/platform/pattern.hpp"
#include "membench/roofline.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace {

constexpr float kChainA = 1.0f, kChainB = 0.25f;

bool per_block(RooflineLevel level) { return level == RooflineLevel::l1 || level == RooflineLevel::shared; }

}  // namespace

namespace kernels {

__device__ inline float chain(float x, int fmas, float a, float b) {
#pragma unroll 4
  for (int f = 0; f < fmas; ++f) x = __fmaf_rn(x, a, b);
  return x;
}

// Local: each block reads its own part (l1, shared); Shared: the block first
// copies its part into shared memory and reads it from there. A float4's
// four chains are summed in fp32 (exact: four multiples of 1/4) and the
// thread's sum in fp64, exact however many it loads.
template <bool Local, bool Shared>
__global__ void __launch_bounds__(kRooflineBlock)
    roofline_read(const float4* __restrict__ in, double* __restrict__ out, unsigned float4s, unsigned per_pass,
                  unsigned passes, int fmas, float a, float b) {
  extern __shared__ float4 part[];
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  constexpr bool local = Local;
  const float4* src = local ? in + static_cast<std::size_t>(blockIdx.x) * float4s : in;
  const unsigned first = local ? threadIdx.x : t, stride = local ? blockDim.x : gridDim.x * blockDim.x;
  if constexpr (Shared) {
    for (unsigned j = threadIdx.x; j < float4s; j += blockDim.x) part[j] = src[j];
    __syncthreads();
    src = part;
  }
  double sum = 0.0;
  for (unsigned p = 0; p < passes; ++p) {
#pragma unroll 4
    for (unsigned k = 0; k < per_pass; ++k) {
      const unsigned j = first + k * stride;
      if (j < float4s) {
        const float4 v = src[j];
        sum += static_cast<double>(chain(v.x, fmas, a, b) + chain(v.y, fmas, a, b) + chain(v.z, fmas, a, b) +
                                   chain(v.w, fmas, a, b));
      }
    }
  }
  out[t] = sum;
}

}  // namespace kernels

namespace {

template <bool Local, bool Shared>
cudaError_t run(const RooflinePlan& p, const float* in, double* out, cudaStream_t s) {
  const RooflineShape shape = roofline_shape(p.config);
  kernels::roofline_read<Local, Shared><<<p.shape.grid, p.shape.block, p.shape.dynamic_smem, s>>>(
      reinterpret_cast<const float4*>(in), out, static_cast<unsigned>(shape.float4s),
      static_cast<unsigned>(shape.per_pass), static_cast<unsigned>(shape.passes), p.config.fmas, kChainA, kChainB);
  return cudaGetLastError();
}

}  // namespace

RooflineShape roofline_shape(const RooflineConfig& c) {
  RooflineShape s;
  s.threads = static_cast<std::size_t>(c.sm_count) * kRooflineOccupancy * kRooflineBlock;
  const bool local = per_block(c.level);
  s.float4s = (local ? kRooflineBlockFloats : c.working_set) / 4;
  const std::size_t readers = local ? kRooflineBlock : s.threads;
  s.per_pass = s.float4s == 0 ? 0 : (s.float4s + readers - 1) / readers;
  const double pass_bytes = 16.0 * static_cast<double>(local ? s.float4s * (s.threads / kRooflineBlock) : s.float4s);
  s.passes = pass_bytes <= 0 ? 0 : static_cast<std::size_t>(std::max(1.0, std::ceil(kRooflineMinBytes / pass_bytes)));
  return s;
}

std::size_t roofline_input_floats(const RooflineConfig& c) {
  return per_block(c.level) ? roofline_shape(c).threads / kRooflineBlock * kRooflineBlockFloats : c.working_set;
}

double roofline_bytes(const RooflineConfig& c) {
  const RooflineShape s = roofline_shape(c);
  return 4.0 * static_cast<double>(roofline_input_floats(c)) * static_cast<double>(s.passes) +
         4.0 * static_cast<double>(s.threads);
}

double roofline_flops(const RooflineConfig& c) {
  const RooflineShape s = roofline_shape(c);
  return 2.0 * c.fmas * static_cast<double>(roofline_input_floats(c)) * static_cast<double>(s.passes);
}

double roofline_expected(const RooflineConfig& c, std::size_t t, std::uint32_t seed) {
  const RooflineShape s = roofline_shape(c);
  const bool local = per_block(c.level);
  const std::size_t base = local ? t / kRooflineBlock * s.float4s : 0;
  const std::size_t first = local ? t % kRooflineBlock : t, stride = local ? kRooflineBlock : s.threads;
  double pass = 0;  // exact: multiples of 1/4
  for (std::size_t k = 0; k < s.per_pass; ++k) {
    const std::size_t j = first + k * stride;
    if (j >= s.float4s) break;
    for (std::size_t e = 0; e < 4; ++e) pass += pattern_value(4 * (base + j) + e, seed) + 0.25 * c.fmas;
  }
  return pass * static_cast<double>(s.passes);
}

cudaError_t plan(const RooflineConfig& c, RooflinePlan* p) {
  if (c.fmas < 0 || c.fmas > kRooflineMaxFmas || c.sm_count < 1) return cudaErrorInvalidValue;
  if (!per_block(c.level) && (c.working_set == 0 || c.working_set % 4 != 0)) return cudaErrorInvalidValue;
  const RooflineShape s = roofline_shape(c);
  if (s.float4s > 0xFFFFFFFFu || s.per_pass * s.passes > 0xFFFFFFFFu) return cudaErrorInvalidValue;
  p->config = c;
  const auto grid = static_cast<unsigned>(s.threads / kRooflineBlock);
  if (c.level == RooflineLevel::shared) {
    const std::size_t smem = kRooflineBlockFloats * sizeof(float);
    if (const cudaError_t rc = cudaFuncSetAttribute(
            kernels::roofline_read<true, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
        rc != cudaSuccess)
      return rc;
    p->shape = detail::shape_of(kernels::roofline_read<true, true>, grid, kRooflineBlock, smem);
    p->run = run<true, true>;
  } else if (c.level == RooflineLevel::l1) {
    p->shape = detail::shape_of(kernels::roofline_read<true, false>, grid, kRooflineBlock);
    p->run = run<true, false>;
  } else {
    p->shape = detail::shape_of(kernels::roofline_read<false, false>, grid, kRooflineBlock);
    p->run = run<false, false>;
  }
  return cudaSuccess;
}

}  // namespace membench
