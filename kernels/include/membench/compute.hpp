// The compute pipes' ceilings: each thread runs `ilp` independent chains of
// multiply-adds, x = x * a + b, kComputeSteps long, on one pipe at a time:
//
//   fp32     FFMA, 32-bit floats
//   fp64     DFMA, 64-bit floats
//   fp16x2   HFMA2, two halves an instruction
//   bf16x2   HFMA2.BF16, two bfloat16 an instruction
//   int32    IMAD, 32-bit unsigned integers (wrapping)
//   mma_bf16 mma.sync.m16n8k16: a warp's 16x16 bfloat16 A times a 16x8 B,
//            accumulated in fp32; each chain is one accumulator tile
//   wgmma_bf16 wgmma.mma_async.m64n128k16 (sm_90a): a warpgroup's 64x16 A,
//            from registers, times a 16x128 B in shared memory; 1 or 2
//            chains (64 accumulators a thread each)
//   wgmma_tf32 the same in tf32: m64n128k8
//   wgmma_e4m3 the same in fp8 (e4m3): m64n128k32; each group of
//            kComputeUnroll steps restarts its accumulators (Hopper sums
//            fp8 products with fewer bits than fp32 keeps)
//
// a and b are kernel arguments (the compiler must issue every multiply-add)
// and each chain starts from the input, so the result is a function of the
// input the host reproduces exactly: IEEE fused multiply-adds in each
// format (fp16 and bfloat16 through exact double arithmetic rounded once),
// integer arithmetic modulo 2^32, and for the tensor cores small integers
// whose sums stay exact in fp32 (B is all ones, so each accumulator holds
// kComputeSteps x its row of A summed).
//
// The grid is `occupancy` blocks of kComputeBlock threads on every SM, so
// the sweep over ilp x occupancy shows what latency the pipe needs hidden.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "membench/platform/arch_facts.hpp"
#include "membench/platform/int_list.hpp"
#include "membench/platform/kernel_shape.hpp"

namespace membench {

enum class ComputeVariant { fp32, fp64, fp16x2, bf16x2, int32, mma_bf16, wgmma_bf16, wgmma_tf32, wgmma_e4m3 };
inline constexpr auto kComputeVariants = enum_names<ComputeVariant>(
    "fp32", "fp64", "fp16x2", "bf16x2", "int32", "mma_bf16", "wgmma_bf16", "wgmma_tf32", "wgmma_e4m3");

inline constexpr int kComputeBlock = 256;
inline constexpr int kComputeSteps = 4096;   // multiply-adds (mma: tiles) in each chain
inline constexpr int kComputeUnroll = 16;    // steps the kernel unrolls between loop branches
using ComputeIlp = IntList<1, 2, 4, 8, 16>;  // independent chains a thread runs
// The chains' starting values: the first kComputeStarts input floats, so the
// host's reference computes kComputeStarts chains, not one a thread.
inline constexpr int kComputeStarts = 256;
// The input floats: the chains' starts, and the tensor cores' A tile (16 rows of up to 32).
inline constexpr int kComputeInput = 512;

struct ComputeConfig {
  ComputeVariant variant = ComputeVariant::fp32;
  int ilp = 4;
  int occupancy = 4;  // blocks resident on each SM
  int sm_count = 1;
};

// What one chain step is and what it counts.
//   outputs_per_chain  floats (fp64, int32: doubles) each chain writes
//   ops_per_step       operations a thread's chain step does (an FMA or a MAD is two)
//   fact               the architecture fact its pipe's rate is
//   tile_k             the tensor cores' A columns (K) a step multiplies; 0 for a chain
//   kept_steps         steps a tensor accumulator sums before it starts again
struct ComputePipe {
  int outputs_per_chain;
  double ops_per_step;
  Fact fact;
  double fact_results_per_step;  // the fact's results one thread's step gives
  int tile_k = 0;
  int kept_steps = kComputeSteps;
};
ComputePipe compute_pipe(ComputeVariant v);

// Whether the output is doubles (fp64, and int32, whose 32 bits a double holds exactly).
bool compute_writes_doubles(ComputeVariant v);

std::size_t compute_threads(const ComputeConfig& c);
// Outputs: chain k of thread t writes its j-th value at (k x outputs_per_chain + j) x threads + t.
std::size_t compute_outputs(const ComputeConfig& c);
// Operations one launch does: threads x ilp x kComputeSteps x ops_per_step.
double compute_ops(const ComputeConfig& c);
// The pipe's peak in operations each SM clock over the whole GPU: its
// results per clock (the architecture fact) x SMs x operations a result; 0
// where the facts table lacks the pipe on this compute capability.
double compute_peak_ops_per_clock(const ComputeConfig& c, int cc_major, int cc_minor);

// The multiply-add operands, kernel arguments.
struct ComputeOperands {
  double a, b;           // the float pipes' (converted to the chain's type)
  std::uint32_t ia, ib;  // int32's
};
ComputeOperands compute_operands(ComputeVariant v);

// The host's reference: output i of a launch of `c` over an input of the
// pattern (seed). Built once (kComputeStarts chains, or for mma_bf16 the A
// tile's row sums), then a lookup: a pure function, called from many threads.
class ComputeReference {
 public:
  ComputeReference(const ComputeConfig& c, std::uint32_t seed);
  double operator()(std::size_t i) const;

 private:
  ComputeConfig c_;
  std::size_t threads_;
  std::vector<double> chains_;  // by start index and output of the chain
};

// One chain of `steps` multiply-adds from `start` (the input float), on the host, as the GPU rounds it; j is the
// chain's output (the high half of a half2).
double compute_chain_on_host(ComputeVariant v, float start_low, float start_high, int steps, int j);
// The tensor cores' A: the element at row m, column k (of the 16 x K tile
// mma_bf16 multiplies, which wgmma repeats down 64 rows), a small
// integer from the input float m x K + k.
float compute_mma_a(float input);

// A launch worked out once: refuses an ilp not built, occupancy < 1, or
// sm_count < 1 with cudaErrorInvalidValue before any CUDA call; an
// occupancy the SM cannot hold (registers, threads) with
// cudaErrorInvalidConfiguration; bf16x2 and mma_bf16 on a device or a build
// below compute capability 8.0, or a wgmma variant where the build carries no sm_90a
// code or the GPU is not compute capability 9.0, with cudaErrorNotSupported;
// a wgmma variant with more than 2 chains with cudaErrorInvalidValue.
using ComputePlan = Plan<ComputeConfig, const float*, void*>;
cudaError_t plan(const ComputeConfig& c, ComputePlan* plan);

}  // namespace membench
