// The local-memory kernels and launcher. See local.hpp.
#include "membench/local.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace kernels {

template <int K>
__global__ void local_dynamic(const float* __restrict__ in, float* __restrict__ out, int rounds, unsigned start) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float a[K];
#pragma unroll
  for (int k = 0; k < K; ++k) a[k] = in[local_input_index(k, t, K)];
  float sum = 0.0f;
  unsigned j = start;
  for (int r = 0; r < rounds; ++r) {
    j = (5u * j + 1u) & (K - 1u);
    sum += a[j];
  }
  out[t] = sum;
}

template <int K>
__global__ void local_unrolled(const float* __restrict__ in, float* __restrict__ out, int rounds) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float a[K];
#pragma unroll
  for (int k = 0; k < K; ++k) a[k] = in[local_input_index(k, t, K)];
  float sum = 0.0f;
  for (int r = 0; r < rounds; r += K) {
#pragma unroll
    for (int k = 0; k < K; ++k) sum += a[k];
  }
  out[t] = sum;
}

template <int K>
__global__ void local_shared(const float* __restrict__ in, float* __restrict__ out, int rounds, unsigned start) {
  extern __shared__ float columns[];  // element k of thread x at columns[k * blockDim.x + x]
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
#pragma unroll
  for (int k = 0; k < K; ++k) columns[k * blockDim.x + threadIdx.x] = in[local_input_index(k, t, K)];
  float sum = 0.0f;
  unsigned j = start;
  for (int r = 0; r < rounds; ++r) {
    j = (5u * j + 1u) & (K - 1u);
    sum += columns[j * blockDim.x + threadIdx.x];
  }
  out[t] = sum;
}

}  // namespace kernels

namespace {

// The start of the index sequence: a kernel argument, so the compiler cannot know the indices.
constexpr unsigned kStart = 3;

template <int K>
cudaError_t run_dynamic(const LocalPlan& p, const float* in, float* out, cudaStream_t s) {
  kernels::local_dynamic<K><<<p.shape.grid, p.shape.block, 0, s>>>(in, out, p.config.rounds, kStart);
  return cudaGetLastError();
}

template <int K>
cudaError_t run_unrolled(const LocalPlan& p, const float* in, float* out, cudaStream_t s) {
  kernels::local_unrolled<K><<<p.shape.grid, p.shape.block, 0, s>>>(in, out, p.config.rounds);
  return cudaGetLastError();
}

template <int K>
cudaError_t run_shared(const LocalPlan& p, const float* in, float* out, cudaStream_t s) {
  kernels::local_shared<K><<<p.shape.grid, p.shape.block, p.shape.dynamic_smem, s>>>(in, out, p.config.rounds, kStart);
  return cudaGetLastError();
}

template <int K>
cudaError_t plan_sized(const LocalConfig& c, LocalPlan* p) {
  const auto grid = static_cast<unsigned>(c.threads / kLocalBlock);
  switch (c.variant) {
    case LocalVariant::dynamic:
      p->shape = detail::shape_of(kernels::local_dynamic<K>, grid, kLocalBlock);
      p->run = run_dynamic<K>;
      return cudaSuccess;
    case LocalVariant::unrolled:
      p->shape = detail::shape_of(kernels::local_unrolled<K>, grid, kLocalBlock);
      p->run = run_unrolled<K>;
      return cudaSuccess;
    case LocalVariant::shared: {
      const std::size_t smem = local_shared_bytes(c);
      int device = 0, most = 0;
      cudaError_t rc = cudaGetDevice(&device);
      if (rc == cudaSuccess) rc = cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
      if (rc != cudaSuccess) return rc;
      if (smem > static_cast<std::size_t>(most)) return cudaErrorInvalidConfiguration;
      rc = cudaFuncSetAttribute(kernels::local_shared<K>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                static_cast<int>(smem));
      if (rc != cudaSuccess) return rc;
      p->shape = detail::shape_of(kernels::local_shared<K>, grid, kLocalBlock, smem);
      p->run = run_shared<K>;
      return cudaSuccess;
    }
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t plan(const LocalConfig& c, LocalPlan* p) {
  if (!LocalSizes::contains(c.elements) || c.rounds < c.elements || c.rounds > kLocalMaxRounds ||
      c.rounds % c.elements != 0 || c.threads == 0 || c.threads % kLocalBlock != 0)
    return cudaErrorInvalidValue;
  p->config = c;
  return LocalSizes::dispatch(
      c.elements, [&](auto k) { return plan_sized<decltype(k)::value>(c, p); }, cudaErrorInvalidValue);
}

cudaError_t local_bytes_per_thread(const LocalPlan& p, std::size_t* bytes) {
  cudaFuncAttributes attributes{};
  const cudaError_t rc = cudaFuncGetAttributes(&attributes, p.shape.function);
  if (rc == cudaSuccess) *bytes = attributes.localSizeBytes;
  return rc;
}

std::size_t local_shared_bytes(const LocalConfig& c) {
  return static_cast<std::size_t>(c.elements) * kLocalBlock * sizeof(float);
}

double local_bytes(const LocalConfig& c) { return 4.0 * static_cast<double>(c.threads) * (c.elements + 1.0); }

double local_store_bytes(const LocalConfig& c) { return 4.0 * static_cast<double>(c.threads) * c.elements; }

double local_load_bytes(const LocalConfig& c) { return 4.0 * static_cast<double>(c.threads) * c.rounds; }

}  // namespace membench
