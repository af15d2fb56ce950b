// compute/wgmma_*: Hopper's warpgroup MMA, the instruction the tensor cores' dense peak is
// reached by, in bfloat16, tf32 and fp8 (e4m3). Built for sm_90a alone (wgmma is an architecture-specific
// instruction); elsewhere plan_wgmma says it is not supported. See compute.hpp.
#include <cuda_fp8.h>

#include <cstdint>
#include <type_traits>

#include "compute_wgmma.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace kernels {

// What differs between the input types: K (A's columns and B's rows one instruction takes; a row of either is
// 32 bytes in each type), the instruction, how four A values become a 32-bit register, and B's element 1.0.
//   k_per_register  A's elements a register holds (K / 8)
//   one             B's 1.0, repeated to fill 32 bits
//   kept_steps      steps an accumulator sums before the instruction restarts it (scale-d 0)
struct WgmmaBf16 {
  static constexpr int k = 16;
  static constexpr std::uint32_t one = 0x3F803F80u;
  static constexpr int kept_steps = kComputeSteps;
};
struct WgmmaTf32 {
  static constexpr int k = 8;
  static constexpr std::uint32_t one = 0x3F800000u;
  static constexpr int kept_steps = kComputeSteps;
};
// Hopper's fp8 products are summed with fewer bits than fp32 keeps (the width is not documented), so an
// accumulator that grew to kComputeSteps x a row sum would round: each unrolled group of kComputeUnroll
// steps starts its accumulators again, and what they hold stays below 2^11.
struct WgmmaE4m3 {
  static constexpr int k = 32;
  static constexpr std::uint32_t one = 0x38383838u;
  static constexpr int kept_steps = kComputeUnroll;
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// A's four elements of one register, lowest first, as the type packs them.
template <class T>
__device__ inline unsigned pack_a(const float (&v)[4]) {
  if constexpr (std::is_same_v<T, WgmmaBf16>) {
    const __nv_bfloat162 p = __floats2bfloat162_rn(v[0], v[1]);
    unsigned bits;
    memcpy(&bits, &p, sizeof bits);
    return bits;
  } else if constexpr (std::is_same_v<T, WgmmaTf32>) {
    return __float_as_uint(v[0]);  // small integers: tf32 holds them exactly
  } else {
    unsigned bits = 0;
    for (int i = 0; i < 4; ++i)
      bits |= static_cast<unsigned>(__nv_cvt_float_to_fp8(v[i], __NV_SATFINITE, __NV_E4M3)) << (8 * i);
    return bits;
  }
}

#define MEMBENCH_WGMMA_D                                                             \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "          \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define MEMBENCH_WGMMA_OPERANDS                                                                                 \
  : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),     \
    "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),         \
    "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),        \
    "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),        \
    "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),        \
    "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),        \
    "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),        \
    "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])                      \
  : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate)

// One wgmma.mma_async of a warpgroup, m64n128 and the type's K, fp32 accumulated: D (64 accumulators a thread) +=
// A (from registers, one 16-row slice a warp) x B (shared memory, by descriptor); with accumulate 0, D = A x B.
template <class T>
__device__ inline void wgmma(float (&d)[64], const unsigned (&a)[4], std::uint64_t b, int accumulate) {
  if constexpr (std::is_same_v<T, WgmmaBf16>)
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " MEMBENCH_WGMMA_D
        ", {%64, %65, %66, %67}, %68, p, 1, 1, 0;\n}\n" MEMBENCH_WGMMA_OPERANDS);
  else if constexpr (std::is_same_v<T, WgmmaTf32>)
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " MEMBENCH_WGMMA_D
        ", {%64, %65, %66, %67}, %68, p, 1, 1;\n}\n" MEMBENCH_WGMMA_OPERANDS);
  else
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 " MEMBENCH_WGMMA_D
        ", {%64, %65, %66, %67}, %68, p, 1, 1;\n}\n" MEMBENCH_WGMMA_OPERANDS);
}
#undef MEMBENCH_WGMMA_D
#undef MEMBENCH_WGMMA_OPERANDS
#endif

// Each warpgroup (4 warps of a block of kComputeBlock) multiplies A, the
// input's 16 x K tile of small integers repeated down 64 rows and held in
// registers, by a K x 128 B of ones in shared memory, Chains accumulator
// tiles at once; a thread's accumulators of a row all equal kept_steps x
// that row of A summed, so it writes the two rows' sums (32 accumulators
// each: exact in fp32).
template <class T, int Chains>
__global__ void __launch_bounds__(kComputeBlock) compute_wgmma(const float* __restrict__ in, float* __restrict__ out) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  // 32 bytes of each of B's 128 rows, whatever the type.
  __shared__ alignas(128) std::uint32_t b[8 * detail::kWgmmaN];
  for (int i = threadIdx.x; i < 8 * detail::kWgmmaN; i += blockDim.x) b[i] = T::one;
  // Written by ordinary stores, read by wgmma through the async proxy.
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  // The mma.sync A layout of the type, one 16-row slice a warp: register r holds row g (+ 8 for odd r),
  // K / 8 consecutive columns from (lane % 4) x K / 8 (+ K / 2 for r >= 2).
  const unsigned lane = threadIdx.x % 32, g = lane / 4;
  constexpr unsigned per_register = T::k / 8;
  unsigned a[4];
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const unsigned m = g + 8 * (r & 1), first = (lane % 4) * per_register + (r >> 1) * (T::k / 2);
    float v[4] = {0, 0, 0, 0};
    for (unsigned i = 0; i < per_register; ++i)
      v[i] = static_cast<float>(static_cast<int>(in[m * T::k + first + i]) % 5 - 2);
    a[r] = pack_a<T>(v);
  }
  // B's descriptor, no swizzle: 8-row x 16-byte core matrices 128 bytes apart along K, 256 along N.
  const auto address = static_cast<std::uint32_t>(__cvta_generic_to_shared(b));
  const std::uint64_t desc =
      ((address & 0x3FFFFu) >> 4) | (std::uint64_t{128 >> 4} << 16) | (std::uint64_t{256 >> 4} << 32);
  float d[Chains][64];
#pragma unroll
  for (int k = 0; k < Chains; ++k)
#pragma unroll
    for (int e = 0; e < 64; ++e) d[k][e] = 0.0f;
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll 1
  for (int s = 0; s < kComputeSteps; s += kComputeUnroll) {
    // A type that keeps fewer steps than the chain runs starts again at each group's first step.
    const int restart = T::kept_steps < kComputeSteps ? 0 : 1;
#pragma unroll
    for (int u = 0; u < kComputeUnroll; ++u)
#pragma unroll
      for (int k = 0; k < Chains; ++k) wgmma<T>(d[k], a, desc, u == 0 ? restart : 1);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#pragma unroll
  for (int k = 0; k < Chains; ++k) {
    float upper = 0.0f, lower = 0.0f;
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      upper += d[k][4 * i] + d[k][4 * i + 1];
      lower += d[k][4 * i + 2] + d[k][4 * i + 3];
    }
    out[(2 * static_cast<std::size_t>(k)) * threads + t] = upper;
    out[(2 * static_cast<std::size_t>(k) + 1) * threads + t] = lower;
  }
#else
  __trap();  // plan_wgmma refuses what this build cannot run
#endif
}

}  // namespace kernels

namespace {

template <class T, int Chains>
cudaError_t run_wgmma(const ComputePlan& p, const float* in, void* out, cudaStream_t s) {
  kernels::compute_wgmma<T, Chains><<<p.shape.grid, p.shape.block, 0, s>>>(in, static_cast<float*>(out));
  return cudaGetLastError();
}

template <class T, int Chains>
cudaError_t plan_chains(const ComputeConfig& c, ComputePlan* p) {
  const void* kernel = reinterpret_cast<const void*>(kernels::compute_wgmma<T, Chains>);
  int device = 0, major = 0, minor = 0;
  cudaError_t rc = cudaGetDevice(&device);
  if (rc == cudaSuccess) rc = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (rc == cudaSuccess) rc = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  if (rc != cudaSuccess) return rc;
  // sm_90a code runs on compute capability 9.0 alone; elsewhere the kernel has no image.
  if (major != 9 || minor != 0) return cudaErrorNotSupported;
  cudaFuncAttributes attributes{};
  if (cudaFuncGetAttributes(&attributes, kernel) != cudaSuccess) {
    cudaGetLastError();
    return cudaErrorNotSupported;
  }
  return detail::plan_compute_kernel(c, kernels::compute_wgmma<T, Chains>, run_wgmma<T, Chains>, p);
}

template <class T>
cudaError_t plan_type(const ComputeConfig& c, ComputePlan* p) {
  if (c.ilp == 1) return plan_chains<T, 1>(c, p);
  if (c.ilp == 2) return plan_chains<T, 2>(c, p);
  return cudaErrorInvalidValue;
}

}  // namespace

namespace detail {

cudaError_t plan_wgmma(const ComputeConfig& c, ComputePlan* p) {
  switch (c.variant) {
    case ComputeVariant::wgmma_bf16: return plan_type<kernels::WgmmaBf16>(c, p);
    case ComputeVariant::wgmma_tf32: return plan_type<kernels::WgmmaTf32>(c, p);
    case ComputeVariant::wgmma_e4m3: return plan_type<kernels::WgmmaE4m3>(c, p);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace detail

}  // namespace membench
