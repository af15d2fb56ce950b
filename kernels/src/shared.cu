#include <numeric>
#include <set>

#include "launch_utils.cuh"
#include "membench/shared.hpp"
#include "shared_kernels.cuh"

namespace membench {

const std::vector<SharedVariant>& shared_variants() {
  static const std::vector<SharedVariant> all = {SharedVariant::row, SharedVariant::column,
                                                 SharedVariant::swizzle, SharedVariant::conflict_degree};
  return all;
}

std::string to_string(SharedVariant v) {
  switch (v) {
    case SharedVariant::row: return "row";
    case SharedVariant::column: return "column";
    case SharedVariant::swizzle: return "swizzle";
    case SharedVariant::conflict_degree: return "conflict_degree";
  }
  return "?";
}

namespace {
dim3 matrix_grid(int n) {
  const auto tiles = static_cast<unsigned>(detail::ceil_div(static_cast<std::size_t>(n), kSharedTile));
  return dim3(tiles, tiles);
}
const dim3 kMatrixBlock(kSharedTile, kSharedTile);

template <int PAD>
cudaError_t launch_column(const float* in, float* out, int n, cudaStream_t stream) {
  kernels::shared_column<PAD><<<matrix_grid(n), kMatrixBlock, 0, stream>>>(in, out, n);
  return detail::last_launch_error();
}
}  // namespace

cudaError_t launch_shared_row(const float* in, float* out, int n, cudaStream_t stream) {
  if (n <= 0) return cudaErrorInvalidValue;
  kernels::shared_row<<<matrix_grid(n), kMatrixBlock, 0, stream>>>(in, out, n);
  return detail::last_launch_error();
}

bool shared_pad_supported(int pad) {
  for (int p : kSharedPads)
    if (p == pad) return true;
  return false;
}

cudaError_t launch_shared_column(const float* in, float* out, int n, int pad, cudaStream_t stream) {
  if (n <= 0) return cudaErrorInvalidValue;
  switch (pad) {
    case 0: return launch_column<0>(in, out, n, stream);
    case 1: return launch_column<1>(in, out, n, stream);
    case 2: return launch_column<2>(in, out, n, stream);
    case 4: return launch_column<4>(in, out, n, stream);
    case 8: return launch_column<8>(in, out, n, stream);
    case 16: return launch_column<16>(in, out, n, stream);
    case 32: return launch_column<32>(in, out, n, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launch_shared_swizzle(const float* in, float* out, int n, cudaStream_t stream) {
  if (n <= 0) return cudaErrorInvalidValue;
  kernels::shared_swizzle<<<matrix_grid(n), kMatrixBlock, 0, stream>>>(in, out, n);
  return detail::last_launch_error();
}

double shared_matrix_bytes(int n) {
  return 2.0 * sizeof(float) * static_cast<double>(n) * static_cast<double>(n);
}

int conflict_wavefronts(int stride_elems, int width_bytes) {
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
  const int phases = width_bytes / kBankBytes;
  return conflict_wavefronts(stride_elems, width_bytes) / phases;
}

int shared_variant_conflict_ways(SharedVariant v, int pad) {
  return v == SharedVariant::column ? conflict_ways(kSharedTile + pad, kBankBytes) : 1;
}

bool conflict_width_supported(int width_bytes) {
  return width_bytes == 4 || width_bytes == 8 || width_bytes == 16;
}

std::size_t conflict_smem_bytes(int stride_elems, int width_bytes) {
  return static_cast<std::size_t>(31 * static_cast<long long>(stride_elems) + 1) * width_bytes;
}

namespace {
template <int WIDTH>
cudaError_t conflict_kernel_setup(int stride, unsigned* grid) {
  const std::size_t smem = conflict_smem_bytes(stride, WIDTH);
  cudaError_t rc = cudaFuncSetAttribute(kernels::conflict_degree<WIDTH>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (rc != cudaSuccess) return rc;
  return detail::resident_grid(kernels::conflict_degree<WIDTH>, kConflictBlock, smem, grid);
}

template <int WIDTH>
cudaError_t launch_conflict(float* out, int stride, int reps, unsigned grid, cudaStream_t stream) {
  const std::size_t smem = conflict_smem_bytes(stride, WIDTH);
  const cudaError_t rc = cudaFuncSetAttribute(kernels::conflict_degree<WIDTH>,
                                              cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (rc != cudaSuccess) return rc;
  kernels::conflict_degree<WIDTH><<<grid, kConflictBlock, smem, stream>>>(out, stride, reps);
  return detail::last_launch_error();
}
}  // namespace

cudaError_t conflict_degree_grid(int stride_elems, int width_bytes, unsigned* grid) {
  if (stride_elems <= 0) return cudaErrorInvalidValue;
  switch (width_bytes) {
    case 4: return conflict_kernel_setup<4>(stride_elems, grid);
    case 8: return conflict_kernel_setup<8>(stride_elems, grid);
    case 16: return conflict_kernel_setup<16>(stride_elems, grid);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launch_conflict_degree(float* out, int stride_elems, int width_bytes, int reps, unsigned grid,
                                   cudaStream_t stream) {
  if (stride_elems <= 0 || reps <= 0 || grid == 0) return cudaErrorInvalidValue;
  switch (width_bytes) {
    case 4: return launch_conflict<4>(out, stride_elems, reps, grid, stream);
    case 8: return launch_conflict<8>(out, stride_elems, reps, grid, stream);
    case 16: return launch_conflict<16>(out, stride_elems, reps, grid, stream);
    default: return cudaErrorInvalidValue;
  }
}

float conflict_degree_expected(std::size_t thread, int stride_elems, int width_bytes, int reps) {
  const int words_per_access = width_bytes / kBankBytes;
  const std::size_t lane = thread % 32;
  const std::size_t first = lane * static_cast<std::size_t>(stride_elems) * words_per_access;
  float one_read = 0.0f;
  for (int w = 0; w < words_per_access; ++w) one_read += small_int_value(first + w);
  return one_read * static_cast<float>(reps);  // exact: small integers
}

double conflict_degree_bytes(unsigned grid, int width_bytes, int reps) {
  return static_cast<double>(grid) * kConflictBlock * static_cast<double>(reps) * width_bytes;
}

}  // namespace membench
