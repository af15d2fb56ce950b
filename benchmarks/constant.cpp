//==============================================================================
// constant: the constant cache against the L1, by the addresses a warp reads
//
// Every thread of a resident grid reads a 16 KiB table `rounds` times and
// writes the sum; the 32 lanes of a warp read `addresses` distinct words at
// once. The hypothesis: the constant cache is built for one address a warp
// (a broadcast at one request a clock) and serialises distinct ones, so its
// rate falls as 1 / addresses (constant_serialization), while the same reads
// from global memory through the L1 cost ceil(addresses / 4) clocks (4
// sectors a clock, sectors_per_request = addresses): at one address both
// deliver 128 bytes a clock per SM; at 32 the L1 is 4x the constant cache.
// model_bytes_per_second is that ceiling; the bytes counted are those the
// lanes receive (4 a read) and the sums written.
//
// Verified exactly: each thread's sum, computed on the host in the same
// order from the same table.
//==============================================================================
#include <cstdint>
#include <memory>
#include <vector>

#include "cases/family.hpp"
#include "membench/constant.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/pattern.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0x43;

CaseDefinition define(const ConstantConfig& c, const DeviceInfo& gpu) {
  ConstantPlan plan;
  MEMBENCH_CUDA(membench::plan(c, &plan));
  auto table = std::make_shared<std::vector<float>>(kConstantFloats);
  for (std::size_t i = 0; i < kConstantFloats; ++i) (*table)[i] = pattern_value(i, kSeed);
  // The sums of one block's threads; every block reads alike.
  auto sums = std::make_shared<std::vector<float>>(kConstantBlock);
  for (std::size_t t = 0; t < sums->size(); ++t) (*sums)[t] = constant_reference(c, t, table->data());

  CaseDefinition d;
  d.input_elements = kConstantFloats;
  d.output_elements = plan.threads;
  d.seed = kSeed;
  d.bind = [plan](const void* in, void* out, BoundLaunch* bound) {
    const auto* device_table = static_cast<const float*>(in);
    if (const cudaError_t rc = bind_table(plan, device_table); rc != cudaSuccess) return rc;
    bound->shape = plan.shape;
    bound->run = [plan, device_table, out = static_cast<float*>(out)](cudaStream_t s) {
      return launch(plan, device_table, out, s);
    };
    return cudaSuccess;
  };
  d.expected = [sums](std::size_t i) { return (*sums)[i % kConstantBlock]; };
  d.work.bytes = constant_bytes(c, plan.threads);
  d.work.peak_bytes_per_second = -1;
  d.work.model.push_back({"constant_serialization", static_cast<double>(constant_serialization(c))});
  if (c.space == ConstantSpace::global)
    d.work.model.push_back({"sectors_per_request", static_cast<double>(constant_sectors_per_request(c))});
  d.work.model.push_back(
      {"model_bytes_per_second", constant_model_bytes_per_second(c, gpu.sm_count, gpu.sm_clock_khz * 1e3)});
  return d;
}

void cases(Family& f) {
  for (ConstantSpace space : kConstantSpaces.all()) {
    const char* kernel = space == ConstantSpace::constant ? "constant_read" : "constant_global_read";
    f.add(std::string(kConstantSpaces(space)), {"addresses", "rounds"}, {kernel}, [space](const CaseArgs& a) {
      return define({space, a.integer("addresses"), a.integer("rounds")}, a.device());
    });
  }
}

const Registrar registrar{
    {"constant",
     {axis("addresses", "words", "distinct words the 32 lanes of a warp read at once", {1, 32}, 1, 32),
      axis("rounds", "reads", "reads of the table by each thread", {1024}, 1, kConstantMaxRounds)},
     cases,
     {"Constant memory: the constant cache against the L1",
      {figure("GB/s the lanes receive by the distinct words a warp reads", "addresses", "bytes_per_second")
           .log_x()
           .log_y()
           .model("model_bytes_per_second")},
      "",
      {}}}};

}  // namespace

}  // namespace membench::cases
