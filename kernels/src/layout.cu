// The layout experiment's kernels and launcher. See layout.hpp.
#include <algorithm>

#include "membench/layout.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace kernels {

// One element per thread; the field loads are separate 4-byte accesses (the
// struct is only 4-byte aligned), each spanning 512 bytes across a warp.
template <int FIELDS>
__global__ void aos_scale(const Particle* __restrict__ in, Particle* __restrict__ out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i].x = 2.0f * in[i].x;
  if constexpr (FIELDS > 1) out[i].y = 2.0f * in[i].y;
  if constexpr (FIELDS > 2) out[i].z = 2.0f * in[i].z;
  if constexpr (FIELDS > 3) out[i].w = 2.0f * in[i].w;
}

template <int FIELDS>
__global__ void soa_scale(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
#pragma unroll
  for (int f = 0; f < FIELDS; ++f) out[f * n + i] = 2.0f * in[f * n + i];
}

}  // namespace kernels

namespace {

template <int FIELDS>
cudaError_t run_aos(const LayoutPlan& p, const float* in, float* out, cudaStream_t s) {
  if (p.config.n == 0) return cudaSuccess;
  kernels::aos_scale<FIELDS><<<p.shape.grid, p.shape.block, 0, s>>>(reinterpret_cast<const Particle*>(in),
                                                                    reinterpret_cast<Particle*>(out), p.config.n);
  return cudaGetLastError();
}

template <int FIELDS>
cudaError_t run_soa(const LayoutPlan& p, const float* in, float* out, cudaStream_t s) {
  if (p.config.n == 0) return cudaSuccess;
  kernels::soa_scale<FIELDS><<<p.shape.grid, p.shape.block, 0, s>>>(in, out, p.config.n);
  return cudaGetLastError();
}

}  // namespace

cudaError_t plan(const LayoutConfig& c, LayoutPlan* p) {
  const auto grid = static_cast<unsigned>(std::max<std::size_t>(1, detail::ceil_div(c.n, kLayoutBlock)));
  p->config = c;
  return LayoutFieldCounts::dispatch(
      c.fields,
      [&](auto fields) {
        constexpr int F = decltype(fields)::value;
        if (c.variant == LayoutVariant::aos) {
          p->shape = detail::shape_of(kernels::aos_scale<F>, grid, kLayoutBlock);
          p->run = run_aos<F>;
        } else {
          p->shape = detail::shape_of(kernels::soa_scale<F>, grid, kLayoutBlock);
          p->run = run_soa<F>;
        }
        return cudaSuccess;
      },
      cudaErrorInvalidValue);
}

double layout_bytes(const LayoutConfig& c) { return 2.0 * sizeof(float) * static_cast<double>(c.n) * c.fields; }

int layout_sectors_per_request(const LayoutConfig& c) {
  const std::size_t lane_stride = c.variant == LayoutVariant::aos ? sizeof(Particle) : sizeof(float);
  return sectors_per_request(sizeof(float), lane_stride);
}

double layout_dram_efficiency(const LayoutConfig& c) {
  // A warp's loads of the different fields of AoS hit the same sectors (the
  // later ones in L1), so DRAM moves all 16 bytes of every element once.
  if (c.variant == LayoutVariant::aos) return static_cast<double>(c.fields) / kLayoutFields;
  return 1.0;
}

DramTraffic layout_dram_traffic(const LayoutConfig& c) {
  const std::size_t field_bytes = sizeof(float) * static_cast<std::size_t>(c.fields);
  DramTraffic t;
  if (c.variant == LayoutVariant::aos) {
    const AccessPattern elements{c.n, field_bytes, sizeof(Particle)};
    t += dram_read(elements);
    t += dram_write(elements);
  } else {
    const AccessPattern field{c.n, sizeof(float), sizeof(float)};
    for (int f = 0; f < c.fields; ++f) {
      t += dram_read(field);
      t += dram_write(field);
    }
  }
  return t;
}

}  // namespace membench
