// GPU tests skip (and ctest reports them skipped) where no device is visible.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "cases/case.hpp"
#include "cases/planned.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/pattern.hpp"
#include "membench/platform/verify.hpp"

namespace membench::test {

inline bool gpu_available(std::string* why = nullptr) {
  static std::string reason;
  static const bool available = visible_devices(&reason) > 0;
  if (why != nullptr) *why = reason;
  return available;
}

// Tests launch a kernel through launch(planned<Plan>(config), ...): the plan
// its define makes and the typed launch the suite times, never a launch of
// their own.
using cases::planned;

// A case's launch as its define binds it, on buffers of the test's own of the
// types the case declares: what a family's test runs where the suite times a
// case rather than a plan (the copies: copy_case).
inline cudaError_t launch_case(const cases::CaseDefinition& d, const cases::CaseBuffers& buffers, cudaStream_t stream) {
  cases::BoundLaunch bound;
  if (const cudaError_t rc = d.bind(buffers, stream, &bound); rc != cudaSuccess) return rc;
  if (bound.before_each)
    if (const cudaError_t rc = bound.before_each(stream); rc != cudaSuccess) return rc;
  return bound.run(stream);
}

// Fills `inputs` floats with pattern_value(i, seed), poisons `outputs`,
// runs launch(in, out) and expects out[i] == expected(i) bit for bit.
template <class Launch, class Expected>
void expect_output(std::size_t inputs, std::size_t outputs, std::uint32_t seed, Launch&& launch, Expected&& expected) {
  DeviceBuffer<float> in(inputs), out(outputs);
  MEMBENCH_CUDA(launch_fill_pattern(in.get(), inputs, seed, nullptr));
  MEMBENCH_CUDA(launch_poison(out.get(), out.bytes(), nullptr));
  MEMBENCH_CUDA(launch(in.get(), out.get()));
  MEMBENCH_CUDA(cudaDeviceSynchronize());
  const auto bad = first_mismatch(copy_to_host(out.get(), outputs), expected);
  EXPECT_FALSE(bad) << describe(*bad, "out");
}

// A copy case between two ends: fills `in` with the pattern and poisons
// `out` (`floats` each), waits, launches the case as its define binds it on
// a stream of its own and waits for it; then out must hold the pattern where
// `out_written`, and the far end (a host buffer, another GPU) must pass
// `far_end()`.
template <class FarEnd>
void expect_copied(std::size_t floats, std::uint32_t seed, bool out_written, const cases::CaseDefinition& copy,
                   FarEnd&& far_end) {
  DeviceBuffer<float> in(floats), out(floats);
  MEMBENCH_CUDA(launch_fill_pattern(in.get(), floats, seed, nullptr));
  MEMBENCH_CUDA(launch_poison(out.get(), out.bytes(), nullptr));
  MEMBENCH_CUDA(cudaDeviceSynchronize());  // the copy runs on another stream
  Stream stream;
  const cases::CaseBuffers buffers(in.get(), cases::Element::f32, out.get(), cases::Element::f32);
  MEMBENCH_CUDA(launch_case(copy, buffers, stream.get()));
  MEMBENCH_CUDA(cudaStreamSynchronize(stream.get()));
  if (out_written) {
    const auto bad =
        first_mismatch(copy_to_host(out.get(), floats), [seed](std::size_t i) { return pattern_value(i, seed); });
    EXPECT_FALSE(bad) << describe(*bad, "out");
  }
  const std::optional<std::string> wrong = far_end();
  EXPECT_FALSE(wrong) << *wrong;
}

}  // namespace membench::test

#define MEMBENCH_REQUIRE_GPU()                                            \
  do {                                                                    \
    std::string membench_why_;                                            \
    if (!::membench::test::gpu_available(&membench_why_))                 \
      GTEST_SKIP() << "no CUDA device visible (" << membench_why_ << ")"; \
  } while (0)
