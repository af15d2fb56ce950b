// Shared-memory experiment: bank conflicts, the padding and swizzle that
// remove them, and the conflict degree as a function of stride and width.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "membench/platform/int_list.hpp"
#include "membench/platform/kernel_shape.hpp"

namespace membench {

//   row      tile[ty][tx] written and read back        -> out = 2 * in
//   column   tile[ty][tx] written, tile[tx][ty] read    -> out = 2 * transpose(in),
//            through tile[32][32 + pad]
//   swizzle  the column read through tile[r][c ^ r]     -> out = 2 * transpose(in)
//   column_tile  the column read of a tile of side `tile` (16, 32, 64) with
//            `pad` floats a row, by blocks of 128 threads (tile x 128 / tile,
//            each thread tile / rows rows), so shared memory per block, and
//            with it the blocks an SM holds, grows with the tile and the pad
//   conflict_degree  every warp of a resident grid reads shared memory `reps`
//            times, lane l at element l * stride of `width` bytes, and writes
//            the sum of what it read to out[thread] (no input)
enum class SharedVariant { row, column, swizzle, conflict_degree, column_tile };
inline constexpr auto kSharedVariants =
    enum_names<SharedVariant>("row", "column", "swizzle", "conflict_degree", "column_tile");

inline constexpr int kSharedTile = 32;  // 32 x 32 tile, block dim3(32, 32)
inline constexpr int kSharedBanks = 32;
inline constexpr int kBankBytes = 4;
inline constexpr long long kSharedMaxSide = 65535LL * kSharedTile;  // a 2-D grid's y limit
using SharedPads = IntList<0, 1, 2, 4, 8, 16, 32>;
using ConflictWidths = IntList<4, 8, 16>;
using SharedTiles = IntList<16, 32, 64>;  // column_tile: the tile's side
inline constexpr int kTileBlock = 128;    // column_tile: threads per block
inline constexpr int kConflictBlock = 256;
inline constexpr int kConflictReps = 4096;

struct SharedConfig {
  SharedVariant variant = SharedVariant::row;
  int n = 0;                 // matrix side (row, column, swizzle)
  int pad = 0;               // column, column_tile
  int tile = kSharedTile;    // column_tile
  int stride = 1;            // conflict_degree: elements between lanes
  int width = 4;             // conflict_degree: bytes per access
  int reps = kConflictReps;  // conflict_degree
};

// in/out are n x n floats for the matrix variants; conflict_degree reads no
// input and writes one float per thread of its grid (shared_output_floats).
// The launch is worked out once (cudaErrorInvalidValue, before any CUDA call,
// for a side, pad, stride, width or repetition count not built or allowed).
using SharedPlan = Plan<SharedConfig, const float*, float*>;
cudaError_t plan(const SharedConfig& c, SharedPlan* plan);
std::size_t shared_input_floats(const SharedConfig& c);
cudaError_t shared_output_floats(const SharedConfig& c, std::size_t* floats);

// Host reference for out[i] (in[j] = pattern_value(j, seed) for the matrix variants).
float shared_reference(const SharedConfig& c, std::size_t i, std::uint32_t seed);

// Useful bytes per launch: global bytes read + written for the matrix
// variants, shared bytes read for conflict_degree.
double shared_bytes(const SharedConfig& c, unsigned grid);

// Bank-conflict model. A warp request in which lane l reads `width_bytes`
// bytes at element l * stride_elems (elements of width_bytes) is served in
// phases of 128 bytes (32 lanes for 4-byte, 16 for 8-byte, 8 for 16-byte
// accesses); within a phase a bank serving k distinct words costs k
// wavefronts. conflict_ways = wavefronts / phases, which works out to
// gcd(stride, 128 / width_bytes): 32 for the stride-32 column read,
// 1 for stride 33. Stride 0 (every lane the same word) is the broadcast: the
// lanes are served together across phases, in one wavefront (two for 16-byte
// loads, issued per half warp), so 8- and 16-byte broadcasts deliver twice
// the bytes per wavefront of distinct words; conflict_ways 1.
int conflict_ways(int stride_elems, int width_bytes);
// Wavefronts of one warp request under the same model.
int conflict_wavefronts(int stride_elems, int width_bytes);
// conflict_ways of a case's shared reads (row: 1; column: that of a word
// stride of 32 + pad; swizzle: 1; conflict_degree: of its stride and width;
// column_tile: of the words a warp's column read touches).
int shared_conflict_ways(const SharedConfig& c);
// The most distinct words one bank serves for 32 lanes' 4-byte words: the
// wavefronts a warp request of them costs.
int bank_ways(const long long (&words)[32]);
// column_tile: the conflict of a warp's row store into the tile (a 16-wide
// tile puts two rows in a warp, which a pad can set on the same banks).
int tile_store_conflict_ways(const SharedConfig& c);
// column_tile: shared memory per block.
std::size_t tile_smem_bytes(const SharedConfig& c);

std::size_t conflict_smem_bytes(int stride_elems, int width_bytes);
// Host reference for out[thread] of conflict_degree.
float conflict_degree_expected(std::size_t thread, int stride_elems, int width_bytes, int reps);

}  // namespace membench
