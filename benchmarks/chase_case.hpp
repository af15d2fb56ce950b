// The case of a pointer chase through memory this GPU reaches over a link
// (transfer: mapped host memory; peer: another GPU's DRAM): the chain is
// filled where it lies, and one thread of this GPU walks it, as
// hierarchy/latency does in its own memory. `owner` keeps the chain's
// memory alive for as long as the case is bound; `nodes` is the address the
// kernel reads; `far_l2_bytes`, the cache in front of the memory, decides
// how many launches warm the chain up. It stands beside the two families
// that share it, not in cases/: it launches hierarchy's chase kernel, and
// the floor below the families knows none of theirs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "cases/case.hpp"
#include "cases/planned.hpp"
#include "membench/hierarchy.hpp"
#include "membench/platform/cuda.hpp"

namespace membench::cases {

inline CaseDefinition chase_case(const LatencyConfig& c, std::shared_ptr<const void> owner, const std::uint64_t* nodes,
                                 std::size_t far_l2_bytes) {
  const auto plan = planned<LatencyPlan>(c);
  CaseDefinition d;
  d.output_elements = 1;
  d.output_type = Element::f64;
  d.bind = [plan, owner, nodes](const CaseBuffers& buffers, cudaStream_t, BoundLaunch* bound) {
    bound->shape = plan.shape;
    bound->run = [plan, owner, nodes, state = buffers.output<double>()](cudaStream_t s) {
      return launch(plan, nodes, state, s);
    };
    return cudaSuccess;
  };
  const double end = latency_expected(c);
  d.expected_f64 = [end](std::size_t) { return end; };
  d.warm_up_launches = latency_warm_up_launches(c, far_l2_bytes);
  d.work.dependent_loads = static_cast<double>(c.steps);
  d.work.model.push_back({"chain_nodes", static_cast<double>(latency_nodes(c))});
  return d;
}

}  // namespace membench::cases
