// The stream family's kernels and launcher. See stream.hpp.
//
// Every kernel walks "slots": slot s < n / L is the 16-byte vector s (L
// elements), the slots after it are the last n % L elements one by one. An
// elementwise kernel gives each thread one slot; a reduction gives each block
// stream_reduce_unroll(K, type) x BLOCK consecutive slots, thread t taking every
// BLOCK-th, all loads issued before the first add.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "block_sum.cuh"
#include "membench/platform/pattern.hpp"
#include "membench/stream.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace {

template <class T>
constexpr std::size_t kLanes = kStreamVectorBytes / sizeof(T);

template <class T>
constexpr std::size_t padded(std::size_t n) {  // each input array starts 16-byte aligned
  return (n + kLanes<T> - 1) / kLanes<T> * kLanes<T>;
}

}  // namespace

namespace kernels {

template <class T>
struct alignas(16) Pack {
  T x[kLanes<T>];
};

// One 16-byte access, whatever the element type.
template <class T>
__device__ __forceinline__ Pack<T> load(const T* p, std::size_t v) {
  const float4 raw = reinterpret_cast<const float4*>(p)[v];
  Pack<T> r;
  memcpy(&r, &raw, sizeof raw);
  return r;
}

template <class T>
__device__ __forceinline__ void store(T* p, std::size_t v, const Pack<T>& r) {
  float4 raw;
  memcpy(&raw, &r, sizeof raw);
  reinterpret_cast<float4*>(p)[v] = raw;
}

// The elementwise kernels' arithmetic on one element: x from a, y from the second array.
template <StreamKernel K, class T>
__device__ __forceinline__ T element(T x, T y, T s, T w) {
  if constexpr (K == StreamKernel::write)
    return w;
  else if constexpr (K == StreamKernel::copy)
    return x;
  else if constexpr (K == StreamKernel::scale)
    return s * x;
  else if constexpr (K == StreamKernel::add)
    return x + y;
  else
    return x + s * y;  // triad
}

template <class T, int BLOCK, StreamKernel K>
__global__ void __launch_bounds__(BLOCK)
    stream_elementwise(const T* __restrict__ in, T* __restrict__ out, std::size_t n, T s, T w) {
  constexpr std::size_t L = kLanes<T>;
  constexpr bool kReadsA = K != StreamKernel::write;
  constexpr bool kReadsB = K == StreamKernel::add || K == StreamKernel::triad;
  const T* a = in;
  const T* b = in + padded<T>(n);
  const std::size_t vectors = n / L;
  const std::size_t slot = static_cast<std::size_t>(blockIdx.x) * BLOCK + threadIdx.x;
  if (slot < vectors) {
    Pack<T> x{}, y{}, r;
    if constexpr (kReadsA) x = load(a, slot);
    if constexpr (kReadsB) y = load(b, slot);
#pragma unroll
    for (std::size_t l = 0; l < L; ++l) r.x[l] = element<K>(x.x[l], y.x[l], s, w);
    store(out, slot, r);
  } else if (const std::size_t e = vectors * L + (slot - vectors); e < n) {
    out[e] = element<K>(kReadsA ? a[e] : T{}, kReadsB ? b[e] : T{}, s, w);
  }
}

// A resident grid walks the chunks of stream_reduce_unroll x BLOCK slots:
// block b takes chunks b, b + grid, ... and writes one partial sum, so the
// block reduction's cost is paid once per block, not once per chunk. A
// float read adds in float (a multiple of 1/4 under 257 per element, 32 per
// chunk, folded into the double sum every kFoldEvery chunks, so every float
// sum stays below 2^18 and exact) and spends no conversion per element;
// double inputs and the products of dot (sixteenths, up to 2^16) add in
// double.
template <class T, int BLOCK, StreamKernel K>
__global__ void __launch_bounds__(BLOCK)
    stream_reduce(const T* __restrict__ in, double* __restrict__ partial, std::size_t n) {
  constexpr std::size_t L = kLanes<T>;
  constexpr int U = stream_reduce_unroll(K, std::is_same_v<T, float> ? StreamType::f32 : StreamType::f64);
  constexpr bool kDot = K == StreamKernel::dot;
  using Acc = std::conditional_t<std::is_same_v<T, float> && !kDot, float, double>;
  constexpr int kFoldEvery = 16;  // well inside the bound (510 chunks), and reached at the suite's sizes
  const T* a = in;
  const T* b = in + padded<T>(n);
  const std::size_t vectors = n / L;
  const std::size_t chunk_slots = static_cast<std::size_t>(BLOCK) * U;
  const std::size_t chunks = (vectors + n % L + chunk_slots - 1) / chunk_slots;
  double sum = 0.0;
  Acc part = 0;
  int since_fold = 0;
  for (std::size_t chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
    const std::size_t first = chunk * chunk_slots + threadIdx.x;
    Pack<T> x[U], y[U];
#pragma unroll
    for (int k = 0; k < U; ++k) {
      const std::size_t slot = first + static_cast<std::size_t>(k) * BLOCK;
      if (slot < vectors) {
        x[k] = load(a, slot);
        if constexpr (kDot) y[k] = load(b, slot);
      }
    }
#pragma unroll
    for (int k = 0; k < U; ++k) {
      const std::size_t slot = first + static_cast<std::size_t>(k) * BLOCK;
      if (slot < vectors) {
#pragma unroll
        for (std::size_t l = 0; l < L; ++l) part += static_cast<Acc>(kDot ? x[k].x[l] * y[k].x[l] : x[k].x[l]);
      } else if (const std::size_t e = vectors * L + (slot - vectors); e < n) {
        part += static_cast<Acc>(kDot ? a[e] * b[e] : a[e]);
      }
    }
    if (++since_fold == kFoldEvery) {
      sum += part;
      part = 0;
      since_fold = 0;
    }
  }
  sum += part;
  store_block_sum<BLOCK>(sum, partial);
}

}  // namespace kernels

namespace {

template <class T>
std::size_t slots(std::size_t n) {
  return n / kLanes<T> + n % kLanes<T>;
}

std::size_t slots_per_block(const StreamConfig& c) {
  return static_cast<std::size_t>(c.block) * (stream_reduces(c.kernel) ? stream_reduce_unroll(c.kernel, c.type) : 1);
}

std::size_t slot_count(const StreamConfig& c) {
  return c.type == StreamType::f32 ? slots<float>(c.n) : slots<double>(c.n);
}

std::size_t chunk_count(const StreamConfig& c) {
  return std::max<std::size_t>(1, detail::ceil_div(slot_count(c), slots_per_block(c)));
}

// The launch of one kernel, type and block size, on arrays of types In and
// Out: cudaErrorInvalidValue where they are not the kernel's.
template <class T, int BLOCK, StreamKernel K, class In, class Out>
cudaError_t run_stream(const StreamPlan& p, const In* in, Out* out, cudaStream_t s) {
  constexpr bool kReduces = K == StreamKernel::read || K == StreamKernel::dot;
  if constexpr (!std::is_same_v<In, T> || !std::is_same_v<Out, std::conditional_t<kReduces, double, T>>) {
    return cudaErrorInvalidValue;
  } else {
    if (p.config.n == 0) return cudaSuccess;
    if constexpr (kReduces)
      kernels::stream_reduce<T, BLOCK, K><<<p.shape.grid, BLOCK, 0, s>>>(in, out, p.config.n);
    else
      kernels::stream_elementwise<T, BLOCK, K><<<p.shape.grid, BLOCK, 0, s>>>(
          in, out, p.config.n, static_cast<T>(kStreamScalar), static_cast<T>(kStreamFill));
    return cudaGetLastError();
  }
}

template <class T, int BLOCK, StreamKernel K>
const void* kernel_entry() {
  if constexpr (K == StreamKernel::read || K == StreamKernel::dot)
    return reinterpret_cast<const void*>(kernels::stream_reduce<T, BLOCK, K>);
  else
    return reinterpret_cast<const void*>(kernels::stream_elementwise<T, BLOCK, K>);
}

// Calls f(std::integral_constant<StreamKernel, K>{}) for the run-time kernel k.
template <class F>
auto with_kernel(StreamKernel k, F&& f) {
  using C = std::integral_constant<StreamKernel, StreamKernel::read>;
  switch (k) {
    case StreamKernel::read: return f(C{});
    case StreamKernel::dot: return f(std::integral_constant<StreamKernel, StreamKernel::dot>{});
    case StreamKernel::write: return f(std::integral_constant<StreamKernel, StreamKernel::write>{});
    case StreamKernel::copy: return f(std::integral_constant<StreamKernel, StreamKernel::copy>{});
    case StreamKernel::scale: return f(std::integral_constant<StreamKernel, StreamKernel::scale>{});
    case StreamKernel::add: return f(std::integral_constant<StreamKernel, StreamKernel::add>{});
    case StreamKernel::triad: return f(std::integral_constant<StreamKernel, StreamKernel::triad>{});
  }
  return f(C{});
}

template <class In, class Out>
cudaError_t launch_typed(const StreamPlan& p, const In* in, Out* out, cudaStream_t s) {
  if (p.shape.function == nullptr) return cudaErrorInvalidValue;  // not planned
  return StreamBlocks::dispatch(
      p.config.block,
      [&](auto block) {
        constexpr int B = decltype(block)::value;
        return with_kernel(p.config.kernel, [&](auto kernel) {
          constexpr StreamKernel K = decltype(kernel)::value;
          return p.config.type == StreamType::f32 ? run_stream<float, B, K>(p, in, out, s)
                                                  : run_stream<double, B, K>(p, in, out, s);
        });
      },
      cudaErrorInvalidValue);
}

}  // namespace

std::size_t stream_element_bytes(StreamType t) { return t == StreamType::f32 ? sizeof(float) : sizeof(double); }

int stream_reads(StreamKernel k) {
  switch (k) {
    case StreamKernel::write: return 0;
    case StreamKernel::add:
    case StreamKernel::triad:
    case StreamKernel::dot: return 2;
    default: return 1;
  }
}

int stream_writes(StreamKernel k) { return stream_reduces(k) ? 0 : 1; }

bool stream_reduces(StreamKernel k) { return k == StreamKernel::read || k == StreamKernel::dot; }

std::size_t stream_input_elements(const StreamConfig& c) {
  const std::size_t array = c.type == StreamType::f32 ? padded<float>(c.n) : padded<double>(c.n);
  return static_cast<std::size_t>(stream_reads(c.kernel)) * array;
}

cudaError_t stream_output_elements(const StreamConfig& c, std::size_t* elements) {
  if (!stream_reduces(c.kernel)) {
    *elements = c.n;
    return StreamBlocks::contains(c.block) ? cudaSuccess : cudaErrorInvalidValue;
  }
  StreamPlan p;
  const cudaError_t rc = plan(c, &p);
  if (rc == cudaSuccess) *elements = p.shape.grid;
  return rc;
}

cudaError_t plan(const StreamConfig& c, StreamPlan* p) {
  return StreamBlocks::dispatch(
      c.block,
      [&](auto block) {
        constexpr int B = decltype(block)::value;
        const void* kernel = with_kernel(c.kernel, [&](auto k) {
          constexpr StreamKernel K = decltype(k)::value;
          return c.type == StreamType::f32 ? kernel_entry<float, B, K>() : kernel_entry<double, B, K>();
        });
        std::size_t grid = chunk_count(c);
        if (stream_reduces(c.kernel)) {
          unsigned resident = 0;
          if (const cudaError_t rc = detail::resident_grid(kernel, B, 0, &resident); rc != cudaSuccess) return rc;
          grid = std::min<std::size_t>(grid, resident);
        }
        p->config = c;
        p->shape = KernelShape{kernel, static_cast<unsigned>(grid), static_cast<unsigned>(B), 0};
        return cudaSuccess;
      },
      cudaErrorInvalidValue);
}

cudaError_t launch(const StreamPlan& p, const float* in, float* out, cudaStream_t stream) {
  return launch_typed(p, in, out, stream);
}
cudaError_t launch(const StreamPlan& p, const float* in, double* partial, cudaStream_t stream) {
  return launch_typed(p, in, partial, stream);
}
cudaError_t launch(const StreamPlan& p, const double* in, double* out, cudaStream_t stream) {
  return launch_typed(p, in, out, stream);
}

namespace {

template <class T>
double expected_typed(const StreamConfig& c, std::size_t i, std::uint32_t seed, unsigned grid) {
  const auto a = [&](std::size_t e) { return static_cast<T>(pattern_value(e, seed)); };
  const auto b = [&](std::size_t e) { return static_cast<T>(pattern_value(padded<T>(c.n) + e, seed)); };
  const T s = static_cast<T>(kStreamScalar);
  switch (c.kernel) {
    case StreamKernel::write: return kStreamFill;
    case StreamKernel::copy: return a(i);
    case StreamKernel::scale: return s * a(i);
    case StreamKernel::add: return a(i) + b(i);
    case StreamKernel::triad: return a(i) + s * b(i);
    default: break;
  }
  // Block i's partial sum: chunks i, i + grid, ...; each slot a vector of L
  // elements or one of the last elements.
  const std::size_t vectors = c.n / kLanes<T>;
  const std::size_t per_chunk = slots_per_block(c);
  const std::size_t total = slots<T>(c.n);
  double sum = 0.0;
  for (std::size_t chunk = i; chunk * per_chunk < total; chunk += std::max(grid, 1u)) {
    const std::size_t last = std::min(total, (chunk + 1) * per_chunk);
    for (std::size_t slot = chunk * per_chunk; slot < last; ++slot) {
      const std::size_t first = slot < vectors ? slot * kLanes<T> : vectors * kLanes<T> + (slot - vectors);
      const std::size_t count = slot < vectors ? kLanes<T> : 1;
      for (std::size_t e = first; e < first + count; ++e)
        sum += static_cast<double>(c.kernel == StreamKernel::dot ? a(e) * b(e) : a(e));
    }
  }
  return sum;
}

}  // namespace

double stream_expected(const StreamConfig& c, std::size_t i, std::uint32_t seed, unsigned grid) {
  return c.type == StreamType::f32 ? expected_typed<float>(c, i, seed, grid) : expected_typed<double>(c, i, seed, grid);
}

double stream_bytes(const StreamConfig& c) {
  return static_cast<double>(stream_reads(c.kernel) + stream_writes(c.kernel)) * static_cast<double>(c.n) *
         static_cast<double>(stream_element_bytes(c.type));
}

DramTraffic stream_dram_traffic(const StreamConfig& c, unsigned grid) {
  const double array = static_cast<double>(c.n) * static_cast<double>(stream_element_bytes(c.type));
  DramTraffic t{stream_reads(c.kernel) * array, stream_writes(c.kernel) * array};
  // Each partial sum is a write to part of a sector: the sector is read, then written back.
  if (stream_reduces(c.kernel)) {
    t.read_bytes += static_cast<double>(kSectorBytes) * grid;
    t.write_bytes += static_cast<double>(kSectorBytes) * grid;
  }
  return t;
}

}  // namespace membench
