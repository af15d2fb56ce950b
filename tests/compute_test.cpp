// The compute pipes: the peak arithmetic from the architecture facts (a
// known architecture, an unknown one), the operations a launch counts, the
// host's chains against their closed forms, the refusals; on the GPU every
// variant and chain count against the host's reference, bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "gpu.hpp"
#include "membench/compute.hpp"

namespace membench {
namespace {

constexpr std::uint32_t kSeed = 7;

TEST(ComputeModel, APipesPeakIsItsResultsAClockTimesSmsTimesOperationsAResult) {
  // Hopper: 128 FFMA, 64 DFMA, 256 half results, 64 IMAD an SM each clock;
  // the tensor cores 4096 dense bfloat16 operations. 132 SMs.
  const auto peak = [](ComputeVariant v, int major, int minor) {
    return compute_peak_ops_per_clock({v, 4, 4, 132}, major, minor);
  };
  EXPECT_DOUBLE_EQ(peak(ComputeVariant::fp32, 9, 0), 128.0 * 132 * 2);
  EXPECT_DOUBLE_EQ(peak(ComputeVariant::fp64, 9, 0), 64.0 * 132 * 2);
  EXPECT_DOUBLE_EQ(peak(ComputeVariant::fp16x2, 9, 0), 256.0 * 132 * 2);  // a half2 instruction: two results
  EXPECT_DOUBLE_EQ(peak(ComputeVariant::bf16x2, 9, 0), 256.0 * 132 * 2);
  EXPECT_DOUBLE_EQ(peak(ComputeVariant::int32, 9, 0), 64.0 * 132 * 2);
  EXPECT_DOUBLE_EQ(peak(ComputeVariant::mma_bf16, 9, 0), 4096.0 * 132);
  EXPECT_DOUBLE_EQ(peak(ComputeVariant::wgmma_bf16, 9, 0), 4096.0 * 132);
  EXPECT_DOUBLE_EQ(peak(ComputeVariant::wgmma_tf32, 9, 0), 2048.0 * 132);  // half bfloat16's rate
  EXPECT_DOUBLE_EQ(peak(ComputeVariant::wgmma_e4m3, 9, 0), 8192.0 * 132);  // twice it
  // At 1830 MHz: the whitepaper's 989.4 bfloat16, 494.7 tf32 and 1978.9 fp8 dense TFLOPS.
  EXPECT_NEAR(peak(ComputeVariant::wgmma_bf16, 9, 0) * 1830e6 / 1e12, 989.4, 0.05);
  EXPECT_NEAR(peak(ComputeVariant::wgmma_tf32, 9, 0) * 1830e6 / 1e12, 494.7, 0.05);
  EXPECT_NEAR(peak(ComputeVariant::wgmma_e4m3, 9, 0) * 1830e6 / 1e12, 1978.9, 0.05);
  // At 1980 MHz: 66.9 FP32 and 33.5 FP64 TFLOP/s, the datasheet's figures at that clock.
  EXPECT_NEAR(peak(ComputeVariant::fp32, 9, 0) * 1980e6 / 1e12, 66.9, 0.05);
  EXPECT_NEAR(peak(ComputeVariant::fp64, 9, 0) * 1980e6 / 1e12, 33.45, 0.05);
  // Ampere's A100: 64 FFMA an SM each clock, 2048 tensor operations.
  EXPECT_DOUBLE_EQ(peak(ComputeVariant::fp32, 8, 0), 64.0 * 132 * 2);
  EXPECT_DOUBLE_EQ(peak(ComputeVariant::mma_bf16, 8, 0), 2048.0 * 132);
}

TEST(ComputeModel, APipeTheFactsLackIsUnknownNeverAnotherArchitecturesPeak) {
  EXPECT_EQ(compute_peak_ops_per_clock({ComputeVariant::fp32, 4, 4, 132}, 11, 0), 0);       // no row
  EXPECT_EQ(compute_peak_ops_per_clock({ComputeVariant::bf16x2, 4, 4, 80}, 7, 0), 0);       // no bfloat16 on Volta
  EXPECT_EQ(compute_peak_ops_per_clock({ComputeVariant::mma_bf16, 4, 4, 80}, 7, 5), 0);     // no source
  EXPECT_EQ(compute_peak_ops_per_clock({ComputeVariant::wgmma_e4m3, 1, 1, 108}, 8, 0), 0);  // no fp8 on Ampere
  EXPECT_EQ(arch_fact(8, 0, Fact::tensor_tf32_flops_per_clock)->value, 1024);
  EXPECT_EQ(arch_fact(9, 0, Fact::bf16_fma_per_clock)->basis, Basis::assumed);
  EXPECT_EQ(arch_fact(9, 0, Fact::fp32_fma_per_clock)->basis, Basis::documented);
}

TEST(ComputeModel, ALaunchCountsEveryThreadsChainsStepsAndOperationsAStep) {
  const ComputeConfig c{ComputeVariant::fp32, 4, 8, 132};
  EXPECT_EQ(compute_threads(c), 132u * 8 * 256);
  EXPECT_DOUBLE_EQ(compute_ops(c), 132.0 * 8 * 256 * 4 * kComputeSteps * 2);
  EXPECT_EQ(compute_outputs(c), 132u * 8 * 256 * 4);
  const ComputeConfig half{ComputeVariant::fp16x2, 2, 1, 2};
  EXPECT_DOUBLE_EQ(compute_ops(half), 2.0 * 256 * 2 * kComputeSteps * 4);  // two lanes of an FMA each
  EXPECT_EQ(compute_outputs(half), 2u * 256 * 2 * 2);
  // A warp's m16n8k16: 16 x 8 x 16 multiply-adds, 4096 operations.
  const ComputeConfig mma{ComputeVariant::mma_bf16, 1, 1, 1};
  EXPECT_DOUBLE_EQ(compute_ops(mma), 8.0 * kComputeSteps * 4096);
  EXPECT_EQ(compute_outputs(mma), 256u * 4);
  // A warpgroup's m64n128k16: 64 x 128 x 16 multiply-adds; two sums a thread each chain.
  const ComputeConfig wgmma{ComputeVariant::wgmma_bf16, 2, 1, 1};
  EXPECT_DOUBLE_EQ(compute_ops(wgmma), 2.0 * 2 * kComputeSteps * 2 * 64 * 128 * 16);
  EXPECT_EQ(compute_outputs(wgmma), 256u * 2 * 2);
  // tf32 takes K = 8, fp8 K = 32: the same 32 bytes of A's row.
  EXPECT_DOUBLE_EQ(compute_ops({ComputeVariant::wgmma_tf32, 1, 1, 1}), 2.0 * kComputeSteps * 2 * 64 * 128 * 8);
  EXPECT_DOUBLE_EQ(compute_ops({ComputeVariant::wgmma_e4m3, 1, 1, 1}), 2.0 * kComputeSteps * 2 * 64 * 128 * 32);
  EXPECT_TRUE(compute_writes_doubles(ComputeVariant::int32));
  EXPECT_TRUE(compute_writes_doubles(ComputeVariant::fp64));
  EXPECT_FALSE(compute_writes_doubles(ComputeVariant::fp16x2));
}

TEST(ComputeModel, TheHostsChainsAreTheFusedMultiplyAddsOfEachFormat) {
  // One step is one rounding of the exact x * a + b.
  const ComputeOperands f = compute_operands(ComputeVariant::fp32);
  EXPECT_EQ(compute_chain_on_host(ComputeVariant::fp32, 3.0f, 0, 1, 0), std::fma(3.0f, float(f.a), float(f.b)));
  EXPECT_EQ(compute_chain_on_host(ComputeVariant::fp64, 3.0f, 0, 2, 0), std::fma(std::fma(3.0, f.a, f.b), f.a, f.b));
  // fp16: 200 x (1 - 2^-9) + 0.25 = 199.859375, which rounds to 199.875 (a 16th apart at 128..256).
  EXPECT_EQ(compute_chain_on_host(ComputeVariant::fp16x2, 7.0f, 200.0f, 1, 1), 199.875);
  // bfloat16: 200 x (1 - 2^-6) + 0.25 = 197.125, which rounds to 197 (1 apart at 128..256).
  EXPECT_EQ(compute_chain_on_host(ComputeVariant::bf16x2, 200.0f, 7.0f, 1, 0), 197.0);
  // int32: modulo 2^32.
  const float start = 1.5f;
  std::uint32_t x;
  std::memcpy(&x, &start, sizeof x);
  const ComputeOperands i = compute_operands(ComputeVariant::int32);
  EXPECT_EQ(compute_chain_on_host(ComputeVariant::int32, start, 0, 2, 0), double((x * i.ia + i.ib) * i.ia + i.ib));
  // Every chain drifts towards b / (1 - a) and stays finite.
  for (ComputeVariant v : {ComputeVariant::fp32, ComputeVariant::fp64, ComputeVariant::fp16x2, ComputeVariant::bf16x2})
    EXPECT_TRUE(std::isfinite(compute_chain_on_host(v, 256.75f, 1.0f, kComputeSteps, 0)));
}

TEST(ComputeModel, TheMmaReferenceIsTheStepsTimesARowOfA) {
  const ComputeConfig c{ComputeVariant::mma_bf16, 2, 1, 1};
  const ComputeReference ref(c, kSeed);
  // Lane 5 of a warp holds rows 1 (its first two accumulators) and 9 (the other two).
  auto row = [](int m) {
    double s = 0;
    for (int k = 0; k < 16; ++k) s += compute_mma_a(pattern_value(static_cast<std::size_t>(m) * 16 + k, kSeed));
    return s * kComputeSteps;
  };
  const std::size_t threads = compute_threads(c);
  EXPECT_EQ(ref(0 * threads + 5), row(1));
  EXPECT_EQ(ref(3 * threads + 37), row(9));  // accumulator 3 of lane 5 of the second warp
  EXPECT_EQ(ref(6 * threads + 5), row(9));   // the second chain's accumulator 2
  for (float in : {1.0f, 2.75f, 7.5f, 256.75f}) EXPECT_LE(std::abs(compute_mma_a(in)), 2.0f) << in;
  // wgmma: each output sums the 32 accumulators of a thread's row, rows l / 4 and l / 4 + 8.
  const ComputeConfig w{ComputeVariant::wgmma_bf16, 2, 1, 1};
  const ComputeReference wref(w, kSeed);
  EXPECT_EQ(wref(0 * threads + 5), 32 * row(1));
  EXPECT_EQ(wref(1 * threads + 5), 32 * row(9));
  EXPECT_EQ(wref(3 * threads + 100), 32 * row(9 % 16));  // the second chain's second sum, lane 4: row 1 + 8
}

TEST(ComputeModel, TheOtherWgmmaTypesSumTheirOwnRowsOfKAndFp8RestartsEachGroup) {
  // A row of K elements from the input floats m x K + k; fp8 keeps kComputeUnroll steps, tf32 all of them.
  auto row = [](int m, int k_width) {
    double s = 0;
    for (int k = 0; k < k_width; ++k)
      s += compute_mma_a(pattern_value(static_cast<std::size_t>(m) * k_width + k, kSeed));
    return s;
  };
  const ComputeReference tf32({ComputeVariant::wgmma_tf32, 1, 1, 1}, kSeed);
  const ComputeReference e4m3({ComputeVariant::wgmma_e4m3, 1, 1, 1}, kSeed);
  const std::size_t threads = compute_threads({ComputeVariant::wgmma_tf32, 1, 1, 1});
  EXPECT_EQ(tf32(0 * threads + 13), 32 * row(3, 8) * kComputeSteps);  // lane 13: row 3
  EXPECT_EQ(e4m3(1 * threads + 13), 32 * row(11, 32) * kComputeUnroll);
  EXPECT_EQ(compute_pipe(ComputeVariant::wgmma_e4m3).kept_steps, kComputeUnroll);
  EXPECT_EQ(compute_pipe(ComputeVariant::wgmma_tf32).kept_steps, kComputeSteps);
  // The tiles read no further than the input holds.
  for (ComputeVariant v : kComputeVariants.all()) EXPECT_LE(16 * compute_pipe(v).tile_k, kComputeInput);
  // Every sum an output holds is exact in fp32.
  for (ComputeVariant v : {ComputeVariant::wgmma_bf16, ComputeVariant::wgmma_tf32, ComputeVariant::wgmma_e4m3}) {
    const ComputePipe p = compute_pipe(v);
    EXPECT_LE(32.0 * 2 * p.tile_k * p.kept_steps, 1 << 24) << kComputeVariants(v);
  }
}

TEST(ComputeModel, RefusesWhatItCannotRunBeforeAnyCudaCall) {
  ComputePlan p;
  EXPECT_EQ(plan({ComputeVariant::fp32, 3, 1, 1}, &p), cudaErrorInvalidValue);  // no such chain count
  EXPECT_EQ(plan({ComputeVariant::fp32, 4, 0, 1}, &p), cudaErrorInvalidValue);
  EXPECT_EQ(plan({ComputeVariant::fp32, 4, 1, 0}, &p), cudaErrorInvalidValue);
  EXPECT_EQ(plan({ComputeVariant::wgmma_bf16, 4, 1, 1}, &p), cudaErrorInvalidValue);  // 64 accumulators a chain
  EXPECT_EQ(plan({ComputeVariant::wgmma_e4m3, 4, 1, 1}, &p), cudaErrorInvalidValue);
  EXPECT_EQ(p.run, nullptr);
}

TEST(ComputeKernels, EveryPipesChainsEqualTheHostsBitForBit) {
  MEMBENCH_REQUIRE_GPU();
  for (ComputeVariant v : kComputeVariants.all())
    for (int chains : {1, compute_pipe(v).tile_k > 0 && v != ComputeVariant::mma_bf16 ? 2 : 16}) {
      const ComputeConfig c{v, chains, 1, 2};  // one block an SM: wgmma's two chains hold 158 registers a thread
      SCOPED_TRACE(std::string(kComputeVariants(v)) + " chains " + std::to_string(chains));
      ComputePlan p;
      const cudaError_t planned = plan(c, &p);
      // bfloat16 and mma.sync below compute capability 8.0; wgmma without sm_90a code (a PTX build) or off 9.0.
      if (planned == cudaErrorNotSupported) {
        int major = 0;
        MEMBENCH_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
        EXPECT_TRUE(major < 8 || (compute_pipe(v).tile_k > 0 && v != ComputeVariant::mma_bf16))
            << "refused on " << major;
        continue;
      }
      MEMBENCH_CUDA(planned);
      const ComputeReference ref(c, kSeed);
      const std::size_t outputs = compute_outputs(c);
      DeviceBuffer<float> in(kComputeInput);
      MEMBENCH_CUDA(launch_fill_pattern(in.get(), kComputeInput, kSeed, nullptr));
      // The output as the case declares it: doubles (fp64, int32) or floats.
      auto expect_chains = [&](auto zero) {
        using T = decltype(zero);
        DeviceBuffer<T> out(outputs);
        MEMBENCH_CUDA(launch_poison(out.get(), out.bytes(), nullptr));
        MEMBENCH_CUDA(launch(p, in.get(), out.get(), nullptr));
        MEMBENCH_CUDA(cudaDeviceSynchronize());
        const auto bad = first_mismatch(copy_to_host(out.get(), outputs), [&](std::size_t i) { return T(ref(i)); });
        EXPECT_FALSE(bad) << describe(*bad, "out");
      };
      if (compute_writes_doubles(v))
        expect_chains(0.0);
      else
        expect_chains(0.0f);
    }
}

TEST(ComputeKernels, AnOccupancyTheSmCannotHoldIsRefused) {
  MEMBENCH_REQUIRE_GPU();
  ComputePlan p;
  EXPECT_EQ(plan({ComputeVariant::fp32, 1, 32, 1}, &p), cudaErrorInvalidConfiguration);  // 8192 threads an SM
}

}  // namespace
}  // namespace membench
