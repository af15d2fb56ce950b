//==============================================================================
// constant: the constant cache against the L1, by the addresses a warp reads
//
// Every thread of a resident grid reads a table of `words` floats (1 to 64
// KiB) `rounds` times and writes the sum; the 32 lanes of a warp read
// `addresses` distinct words at once. The hypothesis: the constant cache is
// built for one address a warp (a broadcast at one request a clock) and
// serialises distinct ones, so its rate falls as 1 / addresses
// (constant_serialization: the requests it serves for each warp read, which
// ncu counts), and it is small: a table it does not hold pays a miss on
// most reads, broadcast or not. The same reads from global memory through
// the L1 cost ceil(addresses / 4) clocks (4 sectors a clock,
// sectors_per_request = addresses): at one address both deliver 128 bytes a
// clock per SM; at 32 the L1 is 4x the constant cache. model_bytes_per_second
// is that ceiling; the bytes counted are those the lanes receive (4 a read)
// and the sums written.
//
// Verified exactly: each thread's sum, computed on the host in the same
// order from the same table.
//==============================================================================
#include <cstdint>
#include <memory>
#include <vector>

#include "cases/family.hpp"
#include "cases/planned.hpp"
#include "membench/constant.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/pattern.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0x43;

CaseDefinition define(const ConstantConfig& c, const DeviceInfo& gpu) {
  const auto plan = planned<ConstantPlan>(c);
  auto table = std::make_shared<std::vector<float>>(c.words);
  for (std::size_t i = 0; i < c.words; ++i) (*table)[i] = pattern_value(i, kSeed);
  // The sums of one block's threads; every block reads alike.
  auto sums = std::make_shared<std::vector<float>>(kConstantBlock);
  for (std::size_t t = 0; t < sums->size(); ++t) (*sums)[t] = constant_reference(c, t, table->data());

  CaseDefinition d;
  d.input_elements = c.words;
  d.output_elements = plan.threads;
  d.seed = kSeed;
  d.bind = [plan](const CaseBuffers& buffers, cudaStream_t stream, BoundLaunch* bound) {
    const float* device_table = buffers.input<float>();
    if (const cudaError_t rc = bind_table(plan, device_table, stream); rc != cudaSuccess) return rc;
    bound->shape = plan.shape;
    bound->run = [plan, device_table, out = buffers.output<float>()](cudaStream_t s) {
      return launch(plan, device_table, out, s);
    };
    return cudaSuccess;
  };
  d.expected = [sums](std::size_t i) { return (*sums)[i % kConstantBlock]; };
  d.work.bytes = constant_bytes(c, plan.threads);
  d.work.peak_bytes_per_second = -1;
  if (c.space == ConstantSpace::constant)
    d.work.model.push_back({"constant_serialization", static_cast<double>(constant_serialization(c))});
  else
    d.work.model.push_back({"sectors_per_request", static_cast<double>(constant_sectors_per_request(c))});
  d.work.model.push_back(
      {"model_bytes_per_second", constant_model_bytes_per_second(c, gpu.sm_count, gpu.sm_clock_khz * 1e3)});
  return d;
}

void cases(Family& f) {
  for (ConstantSpace space : kConstantSpaces.all()) {
    const char* kernel = space == ConstantSpace::constant ? "constant_read" : "constant_global_read";
    f.add(std::string(kConstantSpaces(space)), {"words", "addresses", "rounds"}, {kernel}, [space](const CaseArgs& a) {
      return define({space, a.integer("addresses"), a.integer("rounds"), a.size("words")}, a.device());
    });
  }
}

AxisSpec words_axis() {
  AxisSpec a = axis("words", "floats", "floats in the table (a power of two, 256 to 16384: 1 to 64 KiB)", {256, 4096});
  for (auto w = static_cast<std::int64_t>(kConstantMinWords); w <= static_cast<std::int64_t>(kConstantMaxWords); w *= 2)
    a.allowed.push_back(w);
  a.min = a.allowed.front();
  a.max = a.allowed.back();
  return a;
}

const Registrar registrar{
    {"constant",
     {words_axis(), axis("addresses", "words", "distinct words the 32 lanes of a warp read at once", {1, 32}, 1, 32),
      axis("rounds", "reads", "reads of the table by each thread", {1024}, 1, kConstantMaxRounds)},
     cases,
     {"Constant memory: the constant cache against the L1",
      {figure("GB/s the lanes receive by the distinct words a warp reads", "addresses", "bytes_per_second")
           .log_x()
           .log_y()
           .model("model_bytes_per_second")},
      "the constant cache's broadcast, and its serialisation of distinct addresses",
      {study_row(StudyTable::claims, "constant memory, 32 distinct words a warp: serialised",
                 at("constant", {{"words", 256}, {"addresses", 32}, {"rounds", std::int64_t{1} << 10}}))
           .why({"constant_serialization"})
           .beside(at("constant", {{"words", 256}, {"addresses", 1}, {"rounds", std::int64_t{1} << 10}})),
       study_row(StudyTable::claims, "the same 32 words through the L1",
                 at("global", {{"words", 256}, {"addresses", 32}, {"rounds", std::int64_t{1} << 10}}))
           .why({"sectors_per_request"})
           .beside(at("global", {{"words", 256}, {"addresses", 1}, {"rounds", std::int64_t{1} << 10}}))}}}};

}  // namespace

}  // namespace membench::cases
