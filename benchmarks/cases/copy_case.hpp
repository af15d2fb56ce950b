// The case of one copy operation (transfer: between the device and host
// memory; peer: between two GPUs). The far end (TransferHostSide, PeerSide)
// owns its buffers, holding the pattern to bring in and a poisoned
// destination, and tells the operation's addresses; the device's own input
// holds what goes out and its output receives what comes in. An SM copy may
// move the bytes several times a launch (`passes`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "cases/case.hpp"
#include "membench/copy.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/pattern.hpp"

namespace membench::cases {

template <class FarEnd>
CaseDefinition copy_case(const CopyOperation& op, std::size_t bytes, std::uint32_t seed,
                         std::shared_ptr<const FarEnd> far, EngineCopy engine, int passes = 1) {
  CaseDefinition d;
  const std::size_t floats = bytes / sizeof(float);
  d.input_elements = op.goes_out() ? floats : 0;
  d.output_elements = op.comes_in() ? floats : 0;
  d.seed = seed;
  CopyPlan sm;
  if (op.uses_sm()) MEMBENCH_CUDA(plan(op.direction == CopyDirection::both, &sm, passes));
  d.bind = [op, bytes, far, engine, sm](const CaseBuffers& buffers, cudaStream_t, BoundLaunch* bound) {
    bound->shape = sm.shape;  // no kernel of ours for the copy engine
    const CopyEnds ends = far->ends(buffers.input<std::byte>(), buffers.output<std::byte>());
    bound->run = [op, bytes, far, engine, sm, ends](cudaStream_t s) {
      return launch(op, bytes, ends, sm, far->side(), engine, s);
    };
    return cudaSuccess;
  };
  d.copy_engine = !op.uses_sm();
  d.expected = [seed](std::size_t i) { return pattern_value(i, seed); };
  d.check = [far, seed] { return far->check(seed); };
  // Launched on the stream, as nvbandwidth's are (a graph captures no copy from pageable memory).
  d.graphable = false;
  d.work.bytes = copy_bytes(op, bytes, op.uses_sm() ? passes : 1);
  return d;
}

}  // namespace membench::cases
