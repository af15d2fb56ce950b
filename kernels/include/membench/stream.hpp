// The traffic mixes of BabelStream and gpu-benches over arrays far larger
// than the L2: read (a sum), write (a fill), copy, scale, add, triad and dot,
// in float and double, at any block size. Every kernel moves 16 bytes per
// thread access (float4 / double2); the reductions accumulate in double,
// exactly, and write one partial sum per block.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "membench/platform/int_list.hpp"
#include "membench/platform/kernel_shape.hpp"
#include "membench/platform/models.hpp"

namespace membench {

//   read   sum += a[i]               write  a[i] = w
//   copy   c[i] = a[i]               scale  b[i] = s * c[i]
//   add    c[i] = a[i] + b[i]        triad  a[i] = b[i] + s * c[i]
//   dot    sum += a[i] * b[i]
enum class StreamKernel { read, write, copy, scale, add, triad, dot };
inline constexpr auto kStreamKernels =
    enum_names<StreamKernel>("read", "write", "copy", "scale", "add", "triad", "dot");
enum class StreamType { f32, f64 };
inline constexpr auto kStreamTypes = enum_names<StreamType>("float", "double");
using StreamBlocks = IntList<64, 128, 256, 512, 1024>;

inline constexpr double kStreamScalar = 0.5;   // s: exact on the inputs' multiples of 1/4
inline constexpr double kStreamFill = 3.25;    // w: what `write` stores (not zero)
inline constexpr int kStreamVectorBytes = 16;  // one access per thread
// Slots per thread per chunk in the reductions: eight 16-byte loads in
// flight for a float read and for dot (two arrays, four slots); four for a
// double read, whose double sums take the registers eight would need (eight
// leave fewer blocks resident per SM).
constexpr int stream_reduce_unroll(StreamKernel k, StreamType t) {
  return k == StreamKernel::read && t == StreamType::f32 ? 8 : 4;
}

struct StreamConfig {
  StreamKernel kernel = StreamKernel::copy;
  StreamType type = StreamType::f64;
  std::size_t n = 0;  // elements per array
  int block = 256;
};

std::size_t stream_element_bytes(StreamType t);
// Arrays of n elements a kernel reads and writes (BabelStream's count).
int stream_reads(StreamKernel k);
int stream_writes(StreamKernel k);
bool stream_reduces(StreamKernel k);

// The input buffer holds the arrays the kernel reads, one after another
// (reads x n elements of the type); the output buffer the array it writes, or
// for read and dot one double partial sum per block of the resident grid.
std::size_t stream_input_elements(const StreamConfig& c);
cudaError_t stream_output_elements(const StreamConfig& c, std::size_t* elements);

// The launch worked out once: the kernel and its grid (one thread per
// 16-byte slot, or for read and dot the resident grid, asked of the device);
// cudaErrorInvalidValue, before any CUDA call, for a block size not built.
struct StreamPlan {
  StreamConfig config;
  KernelShape shape;
};
cudaError_t plan(const StreamConfig& c, StreamPlan* plan);
// Launched on the arrays of the plan's type: the elementwise kernels write
// the type, the reductions (read, dot) one double per block.
// cudaErrorInvalidValue, before any CUDA call, for arrays of another type.
cudaError_t launch(const StreamPlan& p, const float* in, float* out, cudaStream_t stream);
cudaError_t launch(const StreamPlan& p, const float* in, double* partial, cudaStream_t stream);
cudaError_t launch(const StreamPlan& p, const double* in, double* out, cudaStream_t stream);

// Host reference for out[i] when input element j holds pattern_value(j, seed)
// in the type: an array element, or block i's exact partial sum when the
// reduction ran on `grid` blocks.
double stream_expected(const StreamConfig& c, std::size_t i, std::uint32_t seed, unsigned grid = 0);

// Useful bytes per launch, as BabelStream counts them: (reads + writes) x n
// x element size; the reductions' partial sums are not counted.
double stream_bytes(const StreamConfig& c);
// DRAM bytes per launch: every array once, and for each of the `grid`
// partial sums of a reduction a sector read and written back.
DramTraffic stream_dram_traffic(const StreamConfig& c, unsigned grid = 0);

}  // namespace membench
