// Stream family: BabelStream's byte counts, the layout of the input arrays,
// the partial sums' reference on the host; every kernel, type and block size
// against it on the GPU, with ragged sizes.
#include <gtest/gtest.h>

#include <cmath>

#include "gpu.hpp"
#include "membench/platform/pattern.hpp"
#include "membench/stream.hpp"

namespace membench {
namespace {

StreamConfig config(StreamKernel k, StreamType t, std::size_t n, int block = 256) { return {k, t, n, block}; }

TEST(StreamAccounting, BytesAsBabelStreamCountsThem) {
  const std::size_t n = 1000;
  const std::pair<StreamKernel, int> arrays[] = {
      {StreamKernel::read, 1}, {StreamKernel::write, 1}, {StreamKernel::copy, 2}, {StreamKernel::scale, 2},
      {StreamKernel::add, 3},  {StreamKernel::triad, 3}, {StreamKernel::dot, 2}};
  for (const auto& [k, count] : arrays) {
    EXPECT_DOUBLE_EQ(stream_bytes(config(k, StreamType::f64, n)), count * n * 8.0) << kStreamKernels(k);
    EXPECT_DOUBLE_EQ(stream_bytes(config(k, StreamType::f32, n)), count * n * 4.0) << kStreamKernels(k);
    EXPECT_EQ(stream_reads(k) + stream_writes(k), count);
  }
}

TEST(StreamAccounting, InputArraysStartAligned) {
  // Two double arrays of 5 elements: the second starts at element 6 (byte 48).
  EXPECT_EQ(stream_input_elements(config(StreamKernel::add, StreamType::f64, 5)), 12u);
  EXPECT_EQ(stream_input_elements(config(StreamKernel::triad, StreamType::f32, 5)), 16u);
  EXPECT_EQ(stream_input_elements(config(StreamKernel::write, StreamType::f32, 5)), 0u);
}

TEST(StreamModel, DramMovesEveryArrayOnceAndThePartialSums) {
  const std::size_t n = std::size_t{1} << 27;
  const auto triad = stream_dram_traffic(config(StreamKernel::triad, StreamType::f64, n));
  EXPECT_DOUBLE_EQ(triad.read_bytes, 2.0 * 8 * n);
  EXPECT_DOUBLE_EQ(triad.write_bytes, 1.0 * 8 * n);
  // 1056 partial sums: each a sector read (the L2 fills the part not written) and written back.
  const auto dot = stream_dram_traffic(config(StreamKernel::dot, StreamType::f64, n), 1056);
  EXPECT_DOUBLE_EQ(dot.read_bytes, 2.0 * 8 * n + 32.0 * 1056);
  EXPECT_DOUBLE_EQ(dot.write_bytes, 32.0 * 1056);
}

TEST(StreamReference, PartialSumsCoverEveryElementOnce) {
  // Whatever the grid, block size and type, the blocks' expected partials add up to the whole sum.
  for (StreamType t : kStreamTypes.all())
    for (int block : {64, 1024})
      for (unsigned grid : {1u, 7u, 1056u})
        for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{100003}}) {
          const StreamConfig c = config(StreamKernel::read, t, n, block);
          double total = 0, direct = 0;
          for (std::size_t b = 0; b < grid; ++b) total += stream_expected(c, b, 3, grid);
          for (std::size_t e = 0; e < n; ++e)
            direct += t == StreamType::f32 ? static_cast<double>(static_cast<float>(pattern_value(e, 3)))
                                           : pattern_value(e, 3);
          EXPECT_EQ(total, direct) << kStreamTypes(t) << " block " << block << " grid " << grid << " n " << n;
        }
}

TEST(StreamReference, ElementwiseFormulas) {
  const StreamConfig triad = config(StreamKernel::triad, StreamType::f64, 10);
  // a[3] + 0.5 * b[3], where b starts at the padded offset 10.
  EXPECT_EQ(stream_expected(triad, 3, 9), pattern_value(3, 9) + 0.5 * pattern_value(10 + 3, 9));
  EXPECT_EQ(stream_expected(config(StreamKernel::write, StreamType::f32, 10), 4, 9), kStreamFill);
  EXPECT_EQ(stream_expected(config(StreamKernel::scale, StreamType::f32, 10), 4, 9), 0.5 * pattern_value(4, 9));
}

TEST(StreamKernels, EveryKernelTypeAndBlockSize) {
  MEMBENCH_REQUIRE_GPU();
  for (StreamKernel k : kStreamKernels.all())
    for (StreamType t : kStreamTypes.all())
      for (int block : StreamBlocks::values)
        for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{1000}, (std::size_t{1} << 20) + 5,
                              (std::size_t{1} << 24) + 3}) {
          const StreamConfig c = config(k, t, n, block);
          SCOPED_TRACE(std::string(kStreamKernels(k)) + " " + std::string(kStreamTypes(t)) + " block " +
                       std::to_string(block) + " n " + std::to_string(n));
          std::size_t outputs = 0;
          ASSERT_EQ(stream_output_elements(c, &outputs), cudaSuccess);
          StreamPlan planned;
          ASSERT_EQ(plan(c, &planned), cudaSuccess);
          const KernelShape shape = planned.shape;
          const bool doubles_out = t == StreamType::f64 || stream_reduces(k);
          const std::size_t inputs = stream_input_elements(c);
          const auto run = [&](auto* in_tag, auto* out_tag) {
            using In = std::remove_pointer_t<decltype(in_tag)>;
            using Out = std::remove_pointer_t<decltype(out_tag)>;
            DeviceBuffer<In> in(std::max<std::size_t>(inputs, 1));
            DeviceBuffer<Out> out(outputs);
            MEMBENCH_CUDA(launch_fill_pattern(in.get(), inputs, 5, nullptr));
            MEMBENCH_CUDA(launch_poison(out.get(), out.bytes(), nullptr));
            MEMBENCH_CUDA(launch(planned, in.get(), out.get(), nullptr));
            MEMBENCH_CUDA(cudaDeviceSynchronize());
            const auto bad = first_mismatch(copy_to_host(out.get(), outputs), [&](std::size_t i) {
              return static_cast<Out>(stream_expected(c, i, 5, shape.grid));
            });
            EXPECT_FALSE(bad) << describe(*bad, "out");
          };
          if (t == StreamType::f32)
            doubles_out ? run((float*)nullptr, (double*)nullptr) : run((float*)nullptr, (float*)nullptr);
          else
            run((double*)nullptr, (double*)nullptr);
        }
}

TEST(StreamKernels, FloatReadFoldsItsSumsExactly) {
  // 2^27 + 5 floats: every block of the resident grid takes more chunks than
  // the fold interval, so the float partial sums are folded several times.
  MEMBENCH_REQUIRE_GPU();
  for (int block : {256, 1024}) {
    const StreamConfig c = config(StreamKernel::read, StreamType::f32, (std::size_t{1} << 27) + 5, block);
    StreamPlan planned;
    ASSERT_EQ(plan(c, &planned), cudaSuccess);
    const KernelShape shape = planned.shape;
    DeviceBuffer<float> in(stream_input_elements(c));
    DeviceBuffer<double> out(shape.grid);
    MEMBENCH_CUDA(launch_fill_pattern(in.get(), in.size(), 5, nullptr));
    MEMBENCH_CUDA(launch_poison(out.get(), out.bytes(), nullptr));
    MEMBENCH_CUDA(launch(planned, in.get(), out.get(), nullptr));
    MEMBENCH_CUDA(cudaDeviceSynchronize());
    const auto bad = all_mismatches(copy_to_host(out.get(), out.size()),
                                    [&](std::size_t i) { return stream_expected(c, i, 5, shape.grid); });
    EXPECT_FALSE(bad) << "block " << block << ": " << describe(*bad, "out");
  }
}

TEST(StreamLaunch, RefusesBlockSizesItDoesNotBuildBeforeAnyCudaCall) {
  StreamPlan unbuilt;
  EXPECT_EQ(plan(config(StreamKernel::copy, StreamType::f64, 32, 96), &unbuilt), cudaErrorInvalidValue);
  EXPECT_EQ(launch(unbuilt, static_cast<const double*>(nullptr), static_cast<double*>(nullptr), nullptr),
            cudaErrorInvalidValue);
  std::size_t elements = 0;
  EXPECT_EQ(stream_output_elements(config(StreamKernel::copy, StreamType::f32, 32, 96), &elements),
            cudaErrorInvalidValue);
}

TEST(StreamLaunch, RefusesArraysOfAnotherTypeThanThePlansBeforeAnyCudaCall) {
  // The elementwise kernels plan without the device: the refusal needs no GPU.
  StreamPlan floats;
  ASSERT_EQ(plan(config(StreamKernel::copy, StreamType::f32, 32), &floats), cudaSuccess);
  EXPECT_EQ(launch(floats, static_cast<const double*>(nullptr), static_cast<double*>(nullptr), nullptr),
            cudaErrorInvalidValue);
  EXPECT_EQ(launch(floats, static_cast<const float*>(nullptr), static_cast<double*>(nullptr), nullptr),
            cudaErrorInvalidValue);
  StreamPlan doubles;
  ASSERT_EQ(plan(config(StreamKernel::triad, StreamType::f64, 32), &doubles), cudaSuccess);
  EXPECT_EQ(launch(doubles, static_cast<const float*>(nullptr), static_cast<float*>(nullptr), nullptr),
            cudaErrorInvalidValue);
}

}  // namespace
}  // namespace membench
