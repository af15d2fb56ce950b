// The compute pipes' kernels, plans and host reference. See compute.hpp.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstring>
#include <type_traits>

#include "compute_wgmma.hpp"
#include "membench/compute.hpp"
#include "membench/platform/pattern.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace {

// The multiply-add operands: a < 1 and b > 0, so every chain drifts towards
// b / (1 - a) and never overflows, and each format holds a and b exactly.
// In fp16 and bfloat16 a x stays within a few binades of b, so the exact
// x * a + b fits a double and rounding it once is the fused multiply-add.
constexpr double kFp32A = 1.0 - 1.0 / 4096, kFp32B = 0.25;
constexpr double kFp16A = 1.0 - 1.0 / 512, kFp16B = 0.25;
constexpr double kBf16A = 1.0 - 1.0 / 64, kBf16B = 0.25;
constexpr std::uint32_t kIntA = 0x01000193u, kIntB = 0x9E3779B9u;

}  // namespace

namespace kernels {

// One 32- or 64-bit float a chain, from one input float.
template <class F>
struct Float {
  using T = F;
  using Out = F;
  __device__ static T start(const float* in, unsigned j) { return in[j % kComputeStarts]; }
  __device__ static T step(T x, T a, T b) {
    if constexpr (std::is_same_v<F, float>)
      return __fmaf_rn(x, a, b);
    else
      return __fma_rn(x, a, b);
  }
  __device__ static void store(Out* out, T x, std::size_t first, std::size_t) { out[first] = x; }
};
using Fp32 = Float<float>;
using Fp64 = Float<double>;

// Two 16-bit lanes an instruction (half2, bfloat162): each lane is a chain of its own, from two input floats.
template <class Pair>
struct Sixteen {
  using T = Pair;
  using Out = float;
  __device__ static T start(const float* in, unsigned j) {
    const float low = in[2 * j % kComputeStarts], high = in[(2 * j + 1) % kComputeStarts];
    if constexpr (std::is_same_v<Pair, __half2>)
      return __floats2half2_rn(low, high);
    else
      return __floats2bfloat162_rn(low, high);
  }
  __device__ static T step(T x, T a, T b) {
    if constexpr (std::is_same_v<Pair, __half2>) {
      return __hfma2(x, a, b);
    } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
      return __hfma2(x, a, b);
#else
      __trap();  // bfloat16 arithmetic needs compute capability 8.0: plan() refuses below it
      return x;
#endif
    }
  }
  __device__ static void store(Out* out, T x, std::size_t first, std::size_t threads) {
    out[first] = __low2float(x);
    out[first + threads] = __high2float(x);
  }
};
using Fp16x2 = Sixteen<__half2>;
using Bf16x2 = Sixteen<__nv_bfloat162>;

struct Int32 {
  using T = unsigned;
  using Out = double;
  __device__ static T start(const float* in, unsigned j) { return __float_as_uint(in[j % kComputeStarts]); }
  __device__ static T step(T x, T a, T b) { return x * a + b; }
  __device__ static void store(Out* out, T x, std::size_t first, std::size_t threads) { out[first] = x; }
};

// Chain k of thread t writes its j-th value at (k x outputs + j) x threads + t.
template <class Op, int Ilp>
__global__ void __launch_bounds__(kComputeBlock)
    compute_chain(const float* __restrict__ in, typename Op::Out* __restrict__ out, typename Op::T a, typename Op::T b,
                  int outputs) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  typename Op::T x[Ilp];
#pragma unroll
  for (int k = 0; k < Ilp; ++k) x[k] = Op::start(in, t * Ilp + k);
#pragma unroll 1
  for (int s = 0; s < kComputeSteps; s += kComputeUnroll) {
#pragma unroll
    for (int u = 0; u < kComputeUnroll; ++u)
#pragma unroll
      for (int k = 0; k < Ilp; ++k) x[k] = Op::step(x[k], a, b);
  }
#pragma unroll
  for (int k = 0; k < Ilp; ++k) Op::store(out, x[k], static_cast<std::size_t>(k) * outputs * threads + t, threads);
}

__device__ inline unsigned bf16_pair(float low, float high) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(low, high);
  unsigned bits;
  memcpy(&bits, &v, sizeof bits);
  return bits;
}

// mma.sync.m16n8k16, bfloat16 in, fp32 accumulated: every warp multiplies
// the input's 16x16 tile A (small integers) by a 16x8 B of ones, Ilp
// accumulator tiles at once. Lane l holds A's rows g = l / 4 and g + 8,
// columns 2 (l % 4) + {0, 1} and the same + 8; its accumulators D's rows g
// and g + 8, columns 2 (l % 4) + {0, 1} (the PTX ISA's fragment layouts).
template <int Ilp>
__global__ void __launch_bounds__(kComputeBlock)
    compute_mma_bf16(const float* __restrict__ in, float* __restrict__ out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x % 32, g = lane / 4, c = 2 * (lane % 4);
  auto a_at = [&](unsigned m, unsigned k) { return static_cast<float>(static_cast<int>(in[m * 16 + k]) % 5 - 2); };
  const unsigned a0 = bf16_pair(a_at(g, c), a_at(g, c + 1));
  const unsigned a1 = bf16_pair(a_at(g + 8, c), a_at(g + 8, c + 1));
  const unsigned a2 = bf16_pair(a_at(g, c + 8), a_at(g, c + 9));
  const unsigned a3 = bf16_pair(a_at(g + 8, c + 8), a_at(g + 8, c + 9));
  const unsigned one = bf16_pair(1.0f, 1.0f);
  float d[Ilp][4];
#pragma unroll
  for (int k = 0; k < Ilp; ++k) d[k][0] = d[k][1] = d[k][2] = d[k][3] = 0.0f;
#pragma unroll 1
  for (int s = 0; s < kComputeSteps; s += kComputeUnroll) {
#pragma unroll
    for (int u = 0; u < kComputeUnroll; ++u)
#pragma unroll
      for (int k = 0; k < Ilp; ++k)
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%0, %1, %2, %3};"
            : "+f"(d[k][0]), "+f"(d[k][1]), "+f"(d[k][2]), "+f"(d[k][3])
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(one), "r"(one));
  }
#pragma unroll
  for (int k = 0; k < Ilp; ++k)
#pragma unroll
    for (int e = 0; e < 4; ++e) out[(static_cast<std::size_t>(k) * 4 + e) * threads + t] = d[k][e];
#else
  __trap();  // plan() refuses a device or a build below compute capability 8.0
#endif
}

}  // namespace kernels

namespace {

template <class Op, int Ilp>
cudaError_t run_chain(const ComputePlan& p, const float* in, void* out, cudaStream_t s) {
  using T = typename Op::T;
  const ComputeOperands o = compute_operands(p.config.variant);
  T a, b;
  if constexpr (std::is_same_v<T, unsigned>) {
    a = o.ia, b = o.ib;
  } else if constexpr (std::is_same_v<T, __half2>) {
    a = __half2half2(__double2half(o.a)), b = __half2half2(__double2half(o.b));
  } else if constexpr (std::is_same_v<T, __nv_bfloat162>) {
    a = __bfloat162bfloat162(__double2bfloat16(o.a)), b = __bfloat162bfloat162(__double2bfloat16(o.b));
  } else {
    a = static_cast<T>(o.a), b = static_cast<T>(o.b);
  }
  kernels::compute_chain<Op, Ilp><<<p.shape.grid, p.shape.block, 0, s>>>(
      in, static_cast<typename Op::Out*>(out), a, b, compute_pipe(p.config.variant).outputs_per_chain);
  return cudaGetLastError();
}

template <int Ilp>
cudaError_t run_mma(const ComputePlan& p, const float* in, void* out, cudaStream_t s) {
  kernels::compute_mma_bf16<Ilp><<<p.shape.grid, p.shape.block, 0, s>>>(in, static_cast<float*>(out));
  return cudaGetLastError();
}

// bfloat16 arithmetic and the tensor cores' mma.sync need compute capability 8.0, in the device and in the
// code that runs.
cudaError_t sm80_available(const void* kernel) {
  int device = 0, major = 0;
  cudaError_t rc = cudaGetDevice(&device);
  if (rc == cudaSuccess) rc = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  cudaFuncAttributes attributes{};
  if (rc == cudaSuccess) rc = cudaFuncGetAttributes(&attributes, kernel);
  if (rc != cudaSuccess) return rc;
  return major >= 8 && compiled_arch(attributes.ptxVersion, attributes.binaryVersion) >= 80 ? cudaSuccess
                                                                                            : cudaErrorNotSupported;
}

template <int Ilp>
cudaError_t plan_ilp(const ComputeConfig& c, ComputePlan* p) {
  switch (c.variant) {
    case ComputeVariant::fp32:
      return detail::plan_compute_kernel(c, kernels::compute_chain<kernels::Fp32, Ilp>, run_chain<kernels::Fp32, Ilp>,
                                         p);
    case ComputeVariant::fp64:
      return detail::plan_compute_kernel(c, kernels::compute_chain<kernels::Fp64, Ilp>, run_chain<kernels::Fp64, Ilp>,
                                         p);
    case ComputeVariant::fp16x2:
      return detail::plan_compute_kernel(c, kernels::compute_chain<kernels::Fp16x2, Ilp>,
                                         run_chain<kernels::Fp16x2, Ilp>, p);
    case ComputeVariant::bf16x2: {
      const void* kernel = reinterpret_cast<const void*>(kernels::compute_chain<kernels::Bf16x2, Ilp>);
      if (const cudaError_t rc = sm80_available(kernel); rc != cudaSuccess) return rc;
      return detail::plan_compute_kernel(c, kernels::compute_chain<kernels::Bf16x2, Ilp>,
                                         run_chain<kernels::Bf16x2, Ilp>, p);
    }
    case ComputeVariant::int32:
      return detail::plan_compute_kernel(c, kernels::compute_chain<kernels::Int32, Ilp>, run_chain<kernels::Int32, Ilp>,
                                         p);
    case ComputeVariant::mma_bf16: {
      const void* kernel = reinterpret_cast<const void*>(kernels::compute_mma_bf16<Ilp>);
      if (const cudaError_t rc = sm80_available(kernel); rc != cudaSuccess) return rc;
      return detail::plan_compute_kernel(c, kernels::compute_mma_bf16<Ilp>, run_mma<Ilp>, p);
    }
    case ComputeVariant::wgmma_bf16:
    case ComputeVariant::wgmma_tf32:
    case ComputeVariant::wgmma_e4m3: return detail::plan_wgmma(c, p);
  }
  return cudaErrorInvalidValue;
}

bool tensor(ComputeVariant v) { return compute_pipe(v).tile_k > 0; }

}  // namespace

#if !defined(MEMBENCH_HAVE_SM90A)
// This build carries no sm_90a code: wgmma cannot run.
cudaError_t detail::plan_wgmma(const ComputeConfig&, ComputePlan*) { return cudaErrorNotSupported; }
#endif

ComputePipe compute_pipe(ComputeVariant v) {
  switch (v) {
    case ComputeVariant::fp32: return {1, 2, Fact::fp32_fma_per_clock, 1};
    case ComputeVariant::fp64: return {1, 2, Fact::fp64_fma_per_clock, 1};
    case ComputeVariant::fp16x2: return {2, 4, Fact::fp16_fma_per_clock, 2};
    case ComputeVariant::bf16x2: return {2, 4, Fact::bf16_fma_per_clock, 2};
    case ComputeVariant::int32: return {1, 2, Fact::int32_mad_per_clock, 1};
    // A warp's m16n8k16 is 16 x 8 x 16 multiply-adds: 4096 operations, 128 a thread.
    case ComputeVariant::mma_bf16: return {4, 128, Fact::tensor_bf16_flops_per_clock, 128, 16};
    // A warpgroup's m64n128kK is 64 x 128 x K multiply-adds: K x 16384 operations, K x 128 a thread.
    case ComputeVariant::wgmma_bf16: return {2, 2048, Fact::tensor_bf16_flops_per_clock, 2048, 16};
    case ComputeVariant::wgmma_tf32: return {2, 1024, Fact::tensor_tf32_flops_per_clock, 1024, 8};
    case ComputeVariant::wgmma_e4m3: return {2, 4096, Fact::tensor_fp8_flops_per_clock, 4096, 32, kComputeUnroll};
  }
  return {1, 0, Fact::fp32_fma_per_clock, 1};
}

bool compute_writes_doubles(ComputeVariant v) { return v == ComputeVariant::fp64 || v == ComputeVariant::int32; }

std::size_t compute_threads(const ComputeConfig& c) {
  return static_cast<std::size_t>(c.sm_count) * c.occupancy * kComputeBlock;
}

std::size_t compute_outputs(const ComputeConfig& c) {
  return compute_threads(c) * c.ilp * compute_pipe(c.variant).outputs_per_chain;
}

double compute_ops(const ComputeConfig& c) {
  return static_cast<double>(compute_threads(c)) * c.ilp * kComputeSteps * compute_pipe(c.variant).ops_per_step;
}

double compute_peak_ops_per_clock(const ComputeConfig& c, int cc_major, int cc_minor) {
  const ComputePipe pipe = compute_pipe(c.variant);
  const auto results = arch_fact(cc_major, cc_minor, pipe.fact);
  if (!results) return 0;
  // Operations a result: a step's operations over the fact's results it gives.
  return results->value * c.sm_count * pipe.ops_per_step / pipe.fact_results_per_step;
}

ComputeOperands compute_operands(ComputeVariant v) {
  switch (v) {
    case ComputeVariant::fp16x2: return {kFp16A, kFp16B, kIntA, kIntB};
    case ComputeVariant::bf16x2: return {kBf16A, kBf16B, kIntA, kIntB};
    default: return {kFp32A, kFp32B, kIntA, kIntB};
  }
}

float compute_mma_a(float input) { return static_cast<float>(static_cast<int>(input) % 5 - 2); }

double compute_chain_on_host(ComputeVariant v, float start_low, float start_high, int steps, int j) {
  const ComputeOperands o = compute_operands(v);
  const float start = j == 0 ? start_low : start_high;
  switch (v) {
    case ComputeVariant::fp32: {
      float x = start;
      const auto a = static_cast<float>(o.a), b = static_cast<float>(o.b);
      for (int s = 0; s < steps; ++s) x = std::fma(x, a, b);
      return x;
    }
    case ComputeVariant::fp64: {
      double x = start;
      for (int s = 0; s < steps; ++s) x = std::fma(x, o.a, o.b);
      return x;
    }
    case ComputeVariant::fp16x2: {
      __half x = __float2half_rn(start);
      const double a = __half2float(__double2half(o.a)), b = __half2float(__double2half(o.b));
      for (int s = 0; s < steps; ++s) x = __double2half(static_cast<double>(__half2float(x)) * a + b);
      return __half2float(x);
    }
    case ComputeVariant::bf16x2: {
      __nv_bfloat16 x = __float2bfloat16_rn(start);
      const double a = __bfloat162float(__double2bfloat16(o.a)), b = __bfloat162float(__double2bfloat16(o.b));
      for (int s = 0; s < steps; ++s) x = __double2bfloat16(static_cast<double>(__bfloat162float(x)) * a + b);
      return __bfloat162float(x);
    }
    case ComputeVariant::int32: {
      std::uint32_t x;
      std::memcpy(&x, &start, sizeof x);
      for (int s = 0; s < steps; ++s) x = x * o.ia + o.ib;
      return x;
    }
    default: break;  // the tensor cores: ComputeReference sums A's rows
  }
  return 0;
}

ComputeReference::ComputeReference(const ComputeConfig& c, std::uint32_t seed) : c_(c), threads_(compute_threads(c)) {
  const int outputs = compute_pipe(c.variant).outputs_per_chain;
  if (tensor(c.variant)) {
    // Each accumulator: the steps it keeps x its row of A summed (B is all
    // ones); wgmma's outputs each sum a thread's 32 accumulators of one row.
    const ComputePipe pipe = compute_pipe(c.variant);
    const double accumulators = c.variant == ComputeVariant::mma_bf16 ? 1 : detail::kWgmmaN / 4;
    for (int m = 0; m < 16; ++m) {
      double row = 0;
      for (int k = 0; k < pipe.tile_k; ++k)
        row += compute_mma_a(pattern_value(static_cast<std::size_t>(m) * pipe.tile_k + k, seed));
      chains_.push_back(row * pipe.kept_steps * accumulators);
    }
    return;
  }
  // A chain of a half2 starts from two input floats; the others from one.
  const int starts = outputs == 2 ? kComputeStarts / 2 : kComputeStarts;
  for (int s = 0; s < starts; ++s) {
    const float low = pattern_value(static_cast<std::size_t>(outputs * s) % kComputeStarts, seed);
    const float high = pattern_value(static_cast<std::size_t>(outputs * s + 1) % kComputeStarts, seed);
    for (int j = 0; j < outputs; ++j) chains_.push_back(compute_chain_on_host(c.variant, low, high, kComputeSteps, j));
  }
}

double ComputeReference::operator()(std::size_t i) const {
  const int outputs = compute_pipe(c_.variant).outputs_per_chain;
  const std::size_t t = i % threads_, row = i / threads_;
  const std::size_t k = row / outputs, j = row % outputs;
  if (tensor(c_.variant)) {
    // Lane l's outputs: row l / 4, then row l / 4 + 8 (mma's accumulators 2 and 3, wgmma's second sum).
    const std::size_t lane = t % 32, m = lane / 4 + (j >= static_cast<std::size_t>(outputs) / 2 ? 8 : 0);
    return chains_[m];
  }
  const std::size_t chain = t * c_.ilp + k;
  const std::size_t starts = chains_.size() / outputs;
  return chains_[(chain % starts) * outputs + j];
}

cudaError_t plan(const ComputeConfig& c, ComputePlan* p) {
  if (!ComputeIlp::contains(c.ilp) || c.occupancy < 1 || c.sm_count < 1) return cudaErrorInvalidValue;
  p->config = c;
  return ComputeIlp::dispatch(
      c.ilp, [&](auto k) { return plan_ilp<decltype(k)::value>(c, p); }, cudaErrorInvalidValue);
}

}  // namespace membench
