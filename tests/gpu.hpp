// GPU tests skip (and ctest reports them skipped) where no device is visible.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "membench/cuda.hpp"

namespace membench::test {

inline bool gpu_available(std::string* why = nullptr) {
  static std::string reason;
  static const bool available = visible_devices(&reason) > 0;
  if (why != nullptr) *why = reason;
  return available;
}

}  // namespace membench::test

#define MEMBENCH_REQUIRE_GPU()                                                 \
  do {                                                                         \
    std::string membench_why_;                                                 \
    if (!::membench::test::gpu_available(&membench_why_))                     \
      GTEST_SKIP() << "no CUDA device visible (" << membench_why_ << ")";      \
  } while (0)
