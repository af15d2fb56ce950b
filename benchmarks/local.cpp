//==============================================================================
// local: a per-thread array in registers, in local memory, in shared memory
//
// Every thread of 2^20 fills an array of `array` floats from global memory
// and reads it `rounds` times. The hypothesis: indexed at run time
// (dynamic), the array cannot be registers addressed by number and lives in
// local memory, which is global memory private to the thread: each read is
// a load through the L1 (128 bytes a warp, since the lanes share the
// index), so the cost grows with the rounds, and once the grid's arrays
// outgrow the L1 the loads go to the L2 and DRAM. A small enough array the
// compiler may keep in registers anyway, choosing the element by
// comparisons: no memory traffic, but instructions per read that grow with
// the array (local_bytes_per_thread 0 says it did). Indexed at compile time (unrolled), the same array is
// registers: no memory traffic at all, until the array outgrows the
// register file and the compiler spills (local_bytes_per_thread says how
// much). The same dynamic reads through shared memory cost no L1 or L2
// traffic and no spill, at the price of shared memory per block.
//
// The model, from where the compiler put the array (the kernel's local
// memory): in local memory, local_store_bytes (the array, once) and
// local_load_bytes (every read), which ncu checks; a kernel the compiler
// gave no local memory moves none (both 0); a spill has no model. bytes counts the
// array read from global memory and the sums written; bytes_per_second is
// that over the time, so the rates compare the three homes of the array.
// Verified exactly: each thread's sum, (rounds / elements) x its array's.
//==============================================================================
#include <cstdint>
#include <string>

#include "cases/family.hpp"
#include "cases/planned.hpp"
#include "membench/local.hpp"
#include "membench/platform/cuda.hpp"
#include "membench/platform/pattern.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0x4C;

CaseDefinition define(const LocalConfig& c, const DeviceInfo& gpu) {
  if (c.rounds % c.elements != 0)
    throw CaseSkipped("rounds " + std::to_string(c.rounds) + " is not a multiple of elements " +
                      std::to_string(c.elements));
  if (c.variant == LocalVariant::shared && local_shared_bytes(c) > gpu.smem_per_block_optin)
    throw CaseSkipped("needs " + std::to_string(local_shared_bytes(c)) +
                      " bytes of shared memory per block; the device allows " +
                      std::to_string(gpu.smem_per_block_optin));
  const auto plan = planned<LocalPlan>(c);
  std::size_t local = 0;
  MEMBENCH_CUDA(local_bytes_per_thread(plan, &local));

  CaseDefinition d;
  d.input_elements = static_cast<std::size_t>(c.elements) * c.threads;
  d.output_elements = c.threads;
  d.seed = kSeed;
  d.bind = bind_plan(plan);
  d.expected = [c](std::size_t t) {
    float sum = 0.0f;
    for (int k = 0; k < c.elements; ++k) sum += pattern_value(local_input_index(k, t, c.elements), kSeed);
    return static_cast<float>(c.rounds / c.elements) * sum;
  };
  d.work.bytes = local_bytes(c);
  d.work.peak_bytes_per_second = -1;  // the SMs' issue rate paces it, not a memory's bandwidth
  d.work.model.push_back({"local_bytes_per_thread", static_cast<double>(local)});
  // Where the compiler put the array decides the model: local memory that
  // holds it, none, or a spill of its own choosing (no model).
  const bool in_local = c.variant == LocalVariant::dynamic && local >= sizeof(float) * c.elements;
  if (in_local || local == 0) {
    d.work.model.push_back({"local_store_bytes", in_local ? local_store_bytes(c) : 0.0});
    d.work.model.push_back({"local_load_bytes", in_local ? local_load_bytes(c) : 0.0});
  }
  return d;
}

void cases(Family& f) {
  for (LocalVariant v : kLocalVariants.all()) {
    const std::string name(kLocalVariants(v));
    f.add(name, {"array", "rounds"}, {"local_" + name}, [v](const CaseArgs& a) {
      return define({v, a.integer("array"), a.integer("rounds")}, a.device());
    });
  }
}

const Registrar registrar{
    {"local",
     {axis_of<LocalSizes>("array", "floats", "floats in each thread's array", {8, 64, 256}),
      axis("rounds", "reads", "reads of the array by each thread (a multiple of elements)", {1024}, 1,
           kLocalMaxRounds)},
     cases,
     {"Local memory: a thread's array in registers, local memory or shared memory",
      {figure("GB/s of the array's global reads by its size", "array", "bytes_per_second").log_x().log_y()},
      "a thread's array in registers, in local memory, or in shared memory",
      {study_row(StudyTable::claims, "a thread's array of 64 indexed at run time: local memory, against registers",
                 at("dynamic", {{"array", 64}, {"rounds", std::int64_t{1} << 10}}))
           .why({"local_load_bytes"})
           .beside(at("unrolled", {{"array", 64}, {"rounds", std::int64_t{1} << 10}}))}}}};

}  // namespace

}  // namespace membench::cases
