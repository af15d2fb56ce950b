// The roofline kernels, plan and host reference. See roofline.hpp.
#include <algorithm>
#include <cmath>

#include "membench/platform/pattern.hpp"
#include "membench/platform/verify.hpp"
#include "membench/roofline.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace {

constexpr float kChainA = 1.0f, kChainB = 0.25f;

bool per_block(RooflineLevel level) { return level == RooflineLevel::l1 || level == RooflineLevel::shared; }

}  // namespace

namespace kernels {

// Two float4s' eight chains advanced together: the FMA pipe sees eight
// independent multiply-adds a step from every thread.
__device__ inline void chains(float4& u, float4& v, int fmas, float a, float b) {
#pragma unroll 2
  for (int f = 0; f < fmas; ++f) {
    u.x = __fmaf_rn(u.x, a, b), u.y = __fmaf_rn(u.y, a, b), u.z = __fmaf_rn(u.z, a, b), u.w = __fmaf_rn(u.w, a, b);
    v.x = __fmaf_rn(v.x, a, b), v.y = __fmaf_rn(v.y, a, b), v.z = __fmaf_rn(v.z, a, b), v.w = __fmaf_rn(v.w, a, b);
  }
}

__device__ inline float lanes(float4 v) { return (v.x + v.y) + (v.z + v.w); }

// Local: each block reads its own part (l1, shared), the same float4s every
// pass; otherwise (dram, l2) thread t reads in pass p as the thread
// (t + p shift) mod the grid's threads, so an SM reads another part of the
// set each pass and its L1 holds none of it again. Shared: the block first
// copies its part into shared memory and reads it from there. A pass's sum
// is exact in fp32 (plan() bounds it), the passes' in fp64.
template <bool Local, bool Shared>
__global__ void __launch_bounds__(kRooflineBlock)
    roofline_read(const float4* __restrict__ in, double* __restrict__ out, unsigned float4s, unsigned per_pass,
                  unsigned passes, unsigned shift, int fmas, float a, float b) {
  extern __shared__ float4 part[];
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned readers = Local ? blockDim.x : gridDim.x * blockDim.x;
  const float4* src = Local ? in + static_cast<std::size_t>(blockIdx.x) * float4s : in;
  if constexpr (Shared) {
    for (unsigned j = threadIdx.x; j < float4s; j += blockDim.x) part[j] = src[j];
    __syncthreads();
    src = part;
  }
  double sum = 0.0;
  for (unsigned p = 0; p < passes; ++p) {
    const unsigned first =
        Local ? threadIdx.x : static_cast<unsigned>((t + static_cast<unsigned long long>(p) * shift) % readers);
    float pass = 0.0f;
#pragma unroll 2
    for (unsigned k = 0; k < per_pass; k += 2) {
      const unsigned j0 = first + k * readers, j1 = j0 + readers;
      const bool in0 = j0 < float4s, in1 = k + 1 < per_pass && j1 < float4s;
      float4 u = in0 ? src[j0] : make_float4(0, 0, 0, 0), v = in1 ? src[j1] : make_float4(0, 0, 0, 0);
      chains(u, v, fmas, a, b);
      pass += (in0 ? lanes(u) : 0.0f) + (in1 ? lanes(v) : 0.0f);
    }
    sum += pass;
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
      static_cast<unsigned>(shape.per_pass), static_cast<unsigned>(shape.passes), static_cast<unsigned>(shape.shift),
      p.config.fmas, kChainA, kChainB);
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
  s.passes = pass_bytes <= 0 ? 0 : static_cast<std::size_t>(std::max(1.0, std::ceil(c.min_bytes / pass_bytes)));
  // About 0.618 of the grid, in whole blocks: pass after pass a block reads parts of the set far apart.
  const std::size_t blocks = s.threads / kRooflineBlock;
  s.shift =
      local ? 0
            : std::max<std::size_t>(1, static_cast<std::size_t>(0.618 * static_cast<double>(blocks))) * kRooflineBlock;
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

namespace {

// One pass's sum of the reader that starts at `first` of its part (whose float4s begin at `base`).
double one_pass(const RooflineConfig& c, const RooflineShape& s, std::size_t base, std::size_t first,
                std::size_t readers, std::uint32_t seed) {
  double pass = 0;  // exact: multiples of 1/4
  for (std::size_t k = 0; k < s.per_pass; ++k) {
    const std::size_t j = first + k * readers;
    if (j >= s.float4s) break;
    for (std::size_t e = 0; e < 4; ++e) pass += pattern_value(4 * (base + j) + e, seed) + 0.25 * c.fmas;
  }
  return pass;
}

}  // namespace

RooflineReference::RooflineReference(const RooflineConfig& c, std::uint32_t seed)
    : c_(c), shape_(roofline_shape(c)), seed_(seed) {
  if (per_block(c.level)) return;
  passes_.resize(shape_.threads);
  parallel_for(shape_.threads, 256, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t v = begin; v < end; ++v) passes_[v] = one_pass(c_, shape_, 0, v, shape_.threads, seed_);
  });
}

double RooflineReference::operator()(std::size_t t) const {
  if (per_block(c_.level)) {
    const std::size_t block = t / kRooflineBlock;
    return one_pass(c_, shape_, block * shape_.float4s, t % kRooflineBlock, kRooflineBlock, seed_) *
           static_cast<double>(shape_.passes);
  }
  double sum = 0;
  for (std::size_t p = 0; p < shape_.passes; ++p) sum += passes_[(t + p * shape_.shift) % shape_.threads];
  return sum;
}

cudaError_t plan(const RooflineConfig& c, RooflinePlan* p) {
  if (c.fmas < 0 || c.fmas > kRooflineMaxFmas || c.sm_count < 1) return cudaErrorInvalidValue;
  if (!per_block(c.level) && (c.working_set == 0 || c.working_set % 4 != 0)) return cudaErrorInvalidValue;
  const RooflineShape s = roofline_shape(c);
  if (s.float4s > 0xFFFFFFFFu || s.threads * 2 > 0xFFFFFFFFu) return cudaErrorInvalidValue;
  // A pass's sum in fp32 stays exact: multiples of 1/4 below 2^22.
  if (4.0 * static_cast<double>(s.per_pass) * (256.75 + 0.25 * c.fmas) >= double(1 << 22)) return cudaErrorInvalidValue;
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
