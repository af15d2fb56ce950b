// The shared-memory experiment's kernels and launcher. See shared.hpp.
#include <algorithm>
#include <set>

#include "membench/platform/pattern.hpp"
#include "membench/shared.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace kernels {

// Every matrix kernel reads a tile coalesced. A warp is one row ty of the
// block (tx = 0..31).
__global__ void shared_row(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kSharedTile][kSharedTile];
  const int x = blockIdx.x * kSharedTile + threadIdx.x;
  const int y = blockIdx.y * kSharedTile + threadIdx.y;
  const bool inside = x < n && y < n;
  if (inside) tile[threadIdx.y][threadIdx.x] = in[static_cast<std::size_t>(y) * n + x];
  __syncthreads();
  if (inside) out[static_cast<std::size_t>(y) * n + x] = 2.0f * tile[threadIdx.y][threadIdx.x];
}

// The warp reads column ty of the tile: word address tx * (32 + PAD) + ty,
// a stride of 32 + PAD words, so gcd(32 + PAD, 32) lanes share a bank.
template <int PAD>
__global__ void shared_column(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kSharedTile][kSharedTile + PAD];
  const int x = blockIdx.x * kSharedTile + threadIdx.x;
  const int y = blockIdx.y * kSharedTile + threadIdx.y;
  if (x < n && y < n) tile[threadIdx.y][threadIdx.x] = in[static_cast<std::size_t>(y) * n + x];
  __syncthreads();
  const int out_x = blockIdx.y * kSharedTile + threadIdx.x;
  const int out_y = blockIdx.x * kSharedTile + threadIdx.y;
  if (out_x < n && out_y < n) out[static_cast<std::size_t>(out_y) * n + out_x] = 2.0f * tile[threadIdx.x][threadIdx.y];
}

// A tile of side TILE with PAD floats a row, by blocks of kTileBlock threads:
// tile x rows, each thread TILE / rows rows of the tile.
template <int TILE, int PAD>
__global__ void shared_column_tile(const float* __restrict__ in, float* __restrict__ out, int n) {
  constexpr int kRows = kTileBlock / TILE;
  __shared__ float tile[TILE][TILE + PAD];
  const int x = blockIdx.x * TILE + threadIdx.x;
  for (int r = threadIdx.y; r < TILE; r += kRows) {
    const int y = blockIdx.y * TILE + r;
    if (x < n && y < n) tile[r][threadIdx.x] = in[static_cast<std::size_t>(y) * n + x];
  }
  __syncthreads();
  const int out_x = blockIdx.y * TILE + threadIdx.x;
  for (int r = threadIdx.y; r < TILE; r += kRows) {
    const int out_y = blockIdx.x * TILE + r;
    if (out_x < n && out_y < n) out[static_cast<std::size_t>(out_y) * n + out_x] = 2.0f * tile[threadIdx.x][r];
  }
}

// Element (r, c) of the tile is stored at column c ^ r: a row still spans all
// 32 banks, and so does a column, without a word of padding.
__global__ void shared_swizzle(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kSharedTile][kSharedTile];
  const int x = blockIdx.x * kSharedTile + threadIdx.x;
  const int y = blockIdx.y * kSharedTile + threadIdx.y;
  if (x < n && y < n) tile[threadIdx.y][threadIdx.x ^ threadIdx.y] = in[static_cast<std::size_t>(y) * n + x];
  __syncthreads();
  const int out_x = blockIdx.y * kSharedTile + threadIdx.x;
  const int out_y = blockIdx.x * kSharedTile + threadIdx.y;
  if (out_x < n && out_y < n)
    out[static_cast<std::size_t>(out_y) * n + out_x] = 2.0f * tile[threadIdx.x][threadIdx.y ^ threadIdx.x];
}

// One shared load of WIDTH bytes that neither the compiler nor ptxas may
// drop, merge or hoist: `asm volatile` binds the compiler, `.volatile` ptxas
// (which would otherwise fold repeated loads of one address into one).
template <int WIDTH>
__device__ __forceinline__ float shared_load_sum(unsigned address);
template <>
__device__ __forceinline__ float shared_load_sum<4>(unsigned address) {
  float a;
  asm volatile("ld.volatile.shared.f32 %0, [%1];" : "=f"(a) : "r"(address) : "memory");
  return a;
}
template <>
__device__ __forceinline__ float shared_load_sum<8>(unsigned address) {
  float a, b;
  asm volatile("ld.volatile.shared.v2.f32 {%0, %1}, [%2];" : "=f"(a), "=f"(b) : "r"(address) : "memory");
  return a + b;
}
template <>
__device__ __forceinline__ float shared_load_sum<16>(unsigned address) {
  float a, b, c, d;
  asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(a), "=f"(b), "=f"(c), "=f"(d)
               : "r"(address)
               : "memory");
  return (a + b) + (c + d);
}

template <int WIDTH>
__global__ void conflict_degree(float* __restrict__ out, int stride, int reps) {
  extern __shared__ float words[];
  constexpr int kWords = WIDTH / 4;
  const int count = (31 * stride + 1) * kWords;
  for (int j = threadIdx.x; j < count; j += blockDim.x) words[j] = small_int_value(static_cast<unsigned>(j));
  __syncthreads();

  const int lane = threadIdx.x % 32;
  const unsigned address =
      static_cast<unsigned>(__cvta_generic_to_shared(words)) + static_cast<unsigned>(lane * stride * WIDTH);
  float sum = 0.0f;
#pragma unroll 8
  for (int r = 0; r < reps; ++r) sum += shared_load_sum<WIDTH>(address);
  out[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
}

}  // namespace kernels

namespace {

bool is_matrix(SharedVariant v) { return v != SharedVariant::conflict_degree; }

dim3 matrix_grid(int n) {
  const auto tiles = static_cast<unsigned>(detail::ceil_div(static_cast<std::size_t>(n), kSharedTile));
  return dim3(tiles, tiles);
}

cudaError_t run_row(const SharedPlan& p, const float* in, float* out, cudaStream_t s) {
  kernels::shared_row<<<matrix_grid(p.config.n), dim3(kSharedTile, kSharedTile), 0, s>>>(in, out, p.config.n);
  return cudaGetLastError();
}

cudaError_t run_swizzle(const SharedPlan& p, const float* in, float* out, cudaStream_t s) {
  kernels::shared_swizzle<<<matrix_grid(p.config.n), dim3(kSharedTile, kSharedTile), 0, s>>>(in, out, p.config.n);
  return cudaGetLastError();
}

template <int PAD>
cudaError_t run_column(const SharedPlan& p, const float* in, float* out, cudaStream_t s) {
  kernels::shared_column<PAD><<<matrix_grid(p.config.n), dim3(kSharedTile, kSharedTile), 0, s>>>(in, out, p.config.n);
  return cudaGetLastError();
}

template <int TILE, int PAD>
cudaError_t run_column_tile(const SharedPlan& p, const float* in, float* out, cudaStream_t s) {
  const auto tiles = static_cast<unsigned>(detail::ceil_div(static_cast<std::size_t>(p.config.n), TILE));
  kernels::shared_column_tile<TILE, PAD>
      <<<dim3(tiles, tiles), dim3(TILE, kTileBlock / TILE), 0, s>>>(in, out, p.config.n);
  return cudaGetLastError();
}

cudaError_t plan_column_tile(const SharedConfig& c, SharedPlan* p) {
  if (c.n <= 0 || detail::ceil_div(static_cast<std::size_t>(c.n), std::max(c.tile, 1)) > 65535)
    return cudaErrorInvalidValue;  // a 2-D grid's y limit
  return SharedTiles::dispatch(
      c.tile,
      [&](auto tile) {
        return SharedPads::dispatch(
            c.pad,
            [&](auto pad) {
              constexpr int kTile = decltype(tile)::value, kPad = decltype(pad)::value;
              const auto tiles = static_cast<unsigned>(detail::ceil_div(static_cast<std::size_t>(c.n), kTile));
              p->shape = detail::shape_of(kernels::shared_column_tile<kTile, kPad>, dim3(tiles, tiles),
                                          dim3(kTile, kTileBlock / kTile));
              p->run = run_column_tile<kTile, kPad>;
              return cudaSuccess;
            },
            cudaErrorInvalidValue);
      },
      cudaErrorInvalidValue);
}

template <int WIDTH>
cudaError_t run_conflict(const SharedPlan& p, const float*, float* out, cudaStream_t s) {
  kernels::conflict_degree<WIDTH>
      <<<p.shape.grid, p.shape.block, p.shape.dynamic_smem, s>>>(out, p.config.stride, p.config.reps);
  return cudaGetLastError();
}

cudaError_t plan_matrix(const SharedConfig& c, SharedPlan* p) {
  if (c.variant == SharedVariant::column_tile) return plan_column_tile(c, p);
  if (c.n <= 0 || c.n > kSharedMaxSide) return cudaErrorInvalidValue;
  const dim3 block(kSharedTile, kSharedTile);
  switch (c.variant) {
    case SharedVariant::row:
      p->shape = detail::shape_of(kernels::shared_row, matrix_grid(c.n), block);
      p->run = run_row;
      return cudaSuccess;
    case SharedVariant::swizzle:
      p->shape = detail::shape_of(kernels::shared_swizzle, matrix_grid(c.n), block);
      p->run = run_swizzle;
      return cudaSuccess;
    default:
      return SharedPads::dispatch(
          c.pad,
          [&](auto pad) {
            p->shape = detail::shape_of(kernels::shared_column<decltype(pad)::value>, matrix_grid(c.n), block);
            p->run = run_column<decltype(pad)::value>;
            return cudaSuccess;
          },
          cudaErrorInvalidValue);
  }
}

cudaError_t plan_conflict(const SharedConfig& c, SharedPlan* p) {
  if (c.stride < 0 || c.reps <= 0) return cudaErrorInvalidValue;  // stride 0: every lane the same word
  return ConflictWidths::dispatch(
      c.width,
      [&](auto width) {
        const auto kernel = kernels::conflict_degree<decltype(width)::value>;
        const std::size_t smem = conflict_smem_bytes(c.stride, c.width);
        cudaError_t rc =
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
        if (rc != cudaSuccess) return rc;
        unsigned grid = 0;
        rc = detail::resident_grid(kernel, kConflictBlock, smem, &grid);
        if (rc != cudaSuccess) return rc;
        p->shape = detail::shape_of(kernel, grid, kConflictBlock, smem);
        p->run = run_conflict<decltype(width)::value>;
        return cudaSuccess;
      },
      cudaErrorInvalidValue);
}

}  // namespace

cudaError_t plan(const SharedConfig& c, SharedPlan* p) {
  p->config = c;
  return is_matrix(c.variant) ? plan_matrix(c, p) : plan_conflict(c, p);
}

std::size_t shared_input_floats(const SharedConfig& c) {
  return is_matrix(c.variant) ? static_cast<std::size_t>(c.n) * static_cast<std::size_t>(c.n) : 0;
}

cudaError_t shared_output_floats(const SharedConfig& c, std::size_t* floats) {
  if (is_matrix(c.variant)) {
    *floats = shared_input_floats(c);
    return cudaSuccess;
  }
  SharedPlan p;
  const cudaError_t rc = plan(c, &p);
  if (rc == cudaSuccess) *floats = static_cast<std::size_t>(p.shape.grid) * p.shape.block;
  return rc;
}

float shared_reference(const SharedConfig& c, std::size_t i, std::uint32_t seed) {
  if (!is_matrix(c.variant)) return conflict_degree_expected(i, c.stride, c.width, c.reps);
  const auto side = static_cast<std::size_t>(c.n);
  const std::size_t source = c.variant == SharedVariant::row ? i : (i % side) * side + i / side;
  return 2.0f * pattern_value(source, seed);
}

double shared_bytes(const SharedConfig& c, unsigned grid) {
  if (is_matrix(c.variant)) return 2.0 * sizeof(float) * static_cast<double>(shared_input_floats(c));
  return static_cast<double>(grid) * kConflictBlock * static_cast<double>(c.reps) * c.width;
}

int conflict_wavefronts(int stride_elems, int width_bytes) {
  // One word for the whole warp: the lanes that read it are served together,
  // whatever their phase; what remains is the smallest request, one
  // wavefront, or two for 16-byte loads (issued per half warp).
  if (stride_elems == 0) return width_bytes == 16 ? 2 : 1;
  const int words_per_access = width_bytes / kBankBytes;
  const int lanes_per_phase = kSharedBanks / words_per_access;  // 128 bytes a phase
  int wavefronts = 0;
  for (int phase_start = 0; phase_start < 32; phase_start += lanes_per_phase) {
    std::set<long long> words_in_bank[kSharedBanks];
    for (int lane = phase_start; lane < phase_start + lanes_per_phase; ++lane) {
      const long long first_word = static_cast<long long>(lane) * stride_elems * words_per_access;
      for (int w = 0; w < words_per_access; ++w) words_in_bank[(first_word + w) % kSharedBanks].insert(first_word + w);
    }
    std::size_t worst = 1;
    for (const auto& words : words_in_bank) worst = std::max(worst, words.size());
    wavefronts += static_cast<int>(worst);
  }
  return wavefronts;
}

int conflict_ways(int stride_elems, int width_bytes) {
  if (stride_elems == 0) return 1;  // the broadcast: no bank serves two words
  const int phases = width_bytes / kBankBytes;
  return conflict_wavefronts(stride_elems, width_bytes) / phases;
}

int bank_ways(const long long (&words)[32]) {
  std::set<long long> in_bank[kSharedBanks];
  for (long long w : words) in_bank[w % kSharedBanks].insert(w);
  std::size_t worst = 1;
  for (const auto& bank : in_bank) worst = std::max(worst, bank.size());
  return static_cast<int>(worst);
}

namespace {

// The words of the first warp of a column_tile block: lane l is thread
// (l % tile, l / tile) of the block; `column` reads tile[x][y], else the
// row store tile[y][x].
int tile_ways(const SharedConfig& c, bool column) {
  long long words[32];
  for (int lane = 0; lane < 32; ++lane) {
    const long long x = lane % c.tile, y = lane / c.tile, row = c.tile + c.pad;
    words[lane] = column ? x * row + y : y * row + x;
  }
  return bank_ways(words);
}

}  // namespace

int tile_store_conflict_ways(const SharedConfig& c) { return tile_ways(c, false); }

std::size_t tile_smem_bytes(const SharedConfig& c) {
  return static_cast<std::size_t>(c.tile) * static_cast<std::size_t>(c.tile + c.pad) * sizeof(float);
}

int shared_conflict_ways(const SharedConfig& c) {
  switch (c.variant) {
    case SharedVariant::column: return conflict_ways(kSharedTile + c.pad, kBankBytes);
    case SharedVariant::conflict_degree: return conflict_ways(c.stride, c.width);
    case SharedVariant::column_tile: return tile_ways(c, true);
    default: return 1;
  }
}

std::size_t conflict_smem_bytes(int stride_elems, int width_bytes) {
  return static_cast<std::size_t>(31 * static_cast<long long>(stride_elems) + 1) * width_bytes;
}

float conflict_degree_expected(std::size_t thread, int stride_elems, int width_bytes, int reps) {
  const int words_per_access = width_bytes / kBankBytes;
  const std::size_t lane = thread % 32;
  const std::size_t first = lane * static_cast<std::size_t>(stride_elems) * words_per_access;
  float one_read = 0.0f;
  for (int w = 0; w < words_per_access; ++w) one_read += small_int_value(first + w);
  return one_read * static_cast<float>(reps);  // exact: small integers
}

}  // namespace membench
