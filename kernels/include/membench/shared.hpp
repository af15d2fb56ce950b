// Shared-memory experiment: bank conflicts, the padding and swizzle that
// remove them, and the conflict degree as a function of stride and width.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

namespace membench {

enum class SharedVariant { row, column, swizzle, conflict_degree };
const std::vector<SharedVariant>& shared_variants();
std::string to_string(SharedVariant v);

inline constexpr int kSharedTile = 32;  // 32 x 32 tile, block dim3(32, 32)
inline constexpr int kSharedBanks = 32;
inline constexpr int kBankBytes = 4;

// On an n x n float matrix (any n >= 1; edge tiles are guarded):
//   row:     tile[ty][tx] written and read back       -> out = 2 * in
//   column:  tile[ty][tx] written, tile[tx][ty] read   -> out = 2 * transpose(in)
//            through tile[32][32 + pad]
//   swizzle: the column read through tile[r][c ^ r]    -> out = 2 * transpose(in)
cudaError_t launch_shared_row(const float* in, float* out, int n, cudaStream_t stream);
cudaError_t launch_shared_column(const float* in, float* out, int n, int pad, cudaStream_t stream);
cudaError_t launch_shared_swizzle(const float* in, float* out, int n, cudaStream_t stream);
inline constexpr int kSharedPads[] = {0, 1, 2, 4, 8, 16, 32};
bool shared_pad_supported(int pad);

// Useful global bytes per launch: n^2 floats read and written.
double shared_matrix_bytes(int n);

// Bank-conflict model. A warp request in which lane l reads `width_bytes`
// bytes at element l * stride_elems (elements of width_bytes) is served in
// phases of 128 bytes (32 lanes for 4-byte, 16 for 8-byte, 8 for 16-byte
// accesses); within a phase a bank serving k distinct words costs k
// wavefronts. conflict_ways = wavefronts / phases, which works out to
// gcd(stride, 128 / width_bytes): 32 for the study's stride-32 column read,
// 1 for stride 33.
int conflict_ways(int stride_elems, int width_bytes);
// Wavefronts of one warp request under the same model.
int conflict_wavefronts(int stride_elems, int width_bytes);

// conflict_ways of the matrix kernels' shared read (row: 1; column: that of
// a word stride of 32 + pad; swizzle: 1).
int shared_variant_conflict_ways(SharedVariant v, int pad);

// conflict_degree: every warp of a resident grid reads shared memory `reps`
// times, lane l at element l * stride of `width` bytes (4, 8 or 16), and
// writes the sum of what it read to out[thread].
inline constexpr int kConflictBlock = 256;
inline constexpr int kConflictReps = 4096;
inline constexpr int kConflictWidths[] = {4, 8, 16};
bool conflict_width_supported(int width_bytes);
std::size_t conflict_smem_bytes(int stride_elems, int width_bytes);
// Blocks the launcher will use (one resident wave).
cudaError_t conflict_degree_grid(int stride_elems, int width_bytes, unsigned* grid);
cudaError_t launch_conflict_degree(float* out, int stride_elems, int width_bytes, int reps, unsigned grid,
                                   cudaStream_t stream);
// Host reference for out[thread].
float conflict_degree_expected(std::size_t thread, int stride_elems, int width_bytes, int reps);
// Shared bytes read per launch.
double conflict_degree_bytes(unsigned grid, int width_bytes, int reps);

}  // namespace membench
