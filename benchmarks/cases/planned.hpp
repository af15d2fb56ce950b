// A family's config planned once: the plan its typed launch takes, worked
// out before any buffer is made. The one way a define plans (and a test
// plans as the define does): a config the kernels refuse throws CudaError
// with CUDA's reason, which fails the case; a family that skips such a
// config instead calls its plan() and reads the refusal.
#pragma once

#include "membench/platform/cuda.hpp"

namespace membench::cases {

// `extra` are what a family's plan() takes between the config and the plan
// (async's input).
template <class Plan, class Config, class... Extra>
Plan planned(const Config& c, const Extra&... extra) {
  Plan p;
  MEMBENCH_CUDA(plan(c, extra..., &p));
  return p;
}

}  // namespace membench::cases
