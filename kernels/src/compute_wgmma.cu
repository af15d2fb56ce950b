// compute/wgmma_bf16: Hopper's warpgroup MMA, the instruction the tensor cores' dense peak is
// reached by. Built for sm_90a alone (wgmma is an architecture-specific
// instruction); elsewhere plan_wgmma says it is not supported. See compute.hpp.
#include <cstdint>

#include "compute_wgmma.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace kernels {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// One wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 of a warpgroup: D (64 accumulators a thread) +=
// A (from registers, the mma.sync m16n8k16 layout, one 16-row slice a warp) x B (shared memory, by descriptor).
__device__ inline void wgmma_m64n128k16(float (&d)[64], unsigned a0, unsigned a1, unsigned a2, unsigned a3,
                                        std::uint64_t b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63},"
      " {%64, %65, %66, %67}, %68, p, 1, 1, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),
        "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
        "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
        "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(b), "r"(1));
}
#endif

// Each warpgroup (4 warps of a block of kComputeBlock) multiplies A, the
// input's 16x16 tile of small integers repeated down 64 rows and held in
// registers, by a 16x128 B of ones in shared memory, Chains accumulator
// tiles at once; a thread's accumulators of a row all equal kComputeSteps x
// that row of A summed, so it writes the two rows' sums (32 accumulators
// each: exact in fp32).
template <int Chains>
__global__ void __launch_bounds__(kComputeBlock)
    compute_wgmma_bf16(const float* __restrict__ in, float* __restrict__ out) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __shared__ alignas(128) unsigned short b[16 * detail::kWgmmaN];
  for (int i = threadIdx.x; i < 16 * detail::kWgmmaN; i += blockDim.x) b[i] = 0x3F80;  // bfloat16 1.0
  // Written by ordinary stores, read by wgmma through the async proxy.
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x % 32, g = lane / 4, c = 2 * (lane % 4);
  auto a_at = [&](unsigned m, unsigned k) { return static_cast<float>(static_cast<int>(in[m * 16 + k]) % 5 - 2); };
  auto pair = [](float low, float high) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(low, high);
    unsigned bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
  };
  // The mma.sync m16n8k16 A layout, one 16-row slice a warp: rows g and g + 8 of the tile.
  const unsigned a0 = pair(a_at(g, c), a_at(g, c + 1)), a1 = pair(a_at(g + 8, c), a_at(g + 8, c + 1));
  const unsigned a2 = pair(a_at(g, c + 8), a_at(g, c + 9)), a3 = pair(a_at(g + 8, c + 8), a_at(g + 8, c + 9));
  // B's descriptor, no swizzle: 8x8 core matrices 128 bytes apart along K, 256 along N.
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
#pragma unroll
    for (int u = 0; u < kComputeUnroll; ++u)
#pragma unroll
      for (int k = 0; k < Chains; ++k) wgmma_m64n128k16(d[k], a0, a1, a2, a3, desc);
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

template <int Chains>
cudaError_t run_wgmma(const ComputePlan& p, const float* in, void* out, cudaStream_t s) {
  kernels::compute_wgmma_bf16<Chains><<<p.shape.grid, p.shape.block, 0, s>>>(in, static_cast<float*>(out));
  return cudaGetLastError();
}

template <int Chains>
cudaError_t plan_chains(const ComputeConfig& c, ComputePlan* p) {
  const void* kernel = reinterpret_cast<const void*>(kernels::compute_wgmma_bf16<Chains>);
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
  return detail::plan_compute_kernel(c, kernels::compute_wgmma_bf16<Chains>, run_wgmma<Chains>, p);
}

}  // namespace

namespace detail {

cudaError_t plan_wgmma(const ComputeConfig& c, ComputePlan* p) {
  if (c.ilp == 1) return plan_chains<1>(c, p);
  if (c.ilp == 2) return plan_chains<2>(c, p);
  return cudaErrorInvalidValue;
}

}  // namespace detail

}  // namespace membench
