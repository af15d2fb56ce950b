// What the models take from a GPU's architecture and no device attribute
// reports, in one table keyed by compute capability, each value with the
// public source it comes from. A fact the table lacks for a compute
// capability is unknown there: the model that needs it says so in the
// result file and reports no value, never another architecture's.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace membench {

enum class Fact {
  sector_bytes,               // the L1's and the L2's unit of access to global memory
  dram_fetch_bytes,           // what the L2 reads from DRAM for one read miss
  shared_banks,               // shared-memory banks
  shared_bank_bytes,          // bytes a bank serves each SM clock
  l1_bytes_per_clock,         // bytes the L1 serves one SM each clock
  l2_bytes_per_clock_per_sm,  // the L2's read bandwidth per SM, in bytes each SM clock
  unified_l1_bytes,           // an SM's unified L1 data cache + shared memory
  nvlink_bytes_per_link,      // one NVLink's rate in one direction, in bytes per second
  clusters,                   // thread-block clusters and distributed shared memory (1 or 0)
  tensor_memory_accelerator,  // bulk copies and tensor maps (1 or 0)
  // The compute pipes: results each SM produces each clock (a fused
  // multiply-add is one result and two operations).
  fp32_fma_per_clock,           // 32-bit floating-point multiply-adds
  fp64_fma_per_clock,           // 64-bit floating-point multiply-adds
  fp16_fma_per_clock,           // 16-bit floating-point multiply-adds (a half2 instruction gives two)
  bf16_fma_per_clock,           // bfloat16 multiply-adds (a bfloat162 instruction gives two)
  int32_mad_per_clock,          // 32-bit integer multiply-adds
  tensor_bf16_flops_per_clock,  // dense bfloat16 tensor-core operations, accumulated in fp32
  tensor_tf32_flops_per_clock,  // dense tf32 tensor-core operations, accumulated in fp32
  tensor_fp8_flops_per_clock,   // dense fp8 (e4m3, e5m2) tensor-core operations, accumulated in fp32
};

// How the table knows a value.
//   documented  NVIDIA's documentation states it
//   derived     follows from documented facts (the source says how)
//   measured    counted by Nsight Compute on a GPU of that compute capability
//   assumed     no public figure: the model's ceiling, named as an assumption
enum class Basis { documented, derived, measured, assumed };

struct FactSpec {
  Fact fact;
  const char* name;  // as the result file names it
  const char* unit;
  const char* meaning;
};
// Every fact, in the order of the enum.
const std::vector<FactSpec>& fact_specs();
const FactSpec& spec_of(Fact fact);

struct SourcedValue {
  double value = 0;
  Basis basis = Basis::documented;
  const char* source = "";
};

// One compute capability's row: the facts the table has for it.
struct ArchRow {
  int cc_major = 0, cc_minor = 0;
  std::vector<std::pair<Fact, SourcedValue>> facts;
};
const std::vector<ArchRow>& arch_table();

// The fact for this compute capability; nullopt where the table has none.
std::optional<SourcedValue> arch_fact(int cc_major, int cc_minor, Fact fact);
// The same, as the value alone, or 0 where unknown.
double arch_value_or_zero(int cc_major, int cc_minor, Fact fact);
// "no source for the L2's read bytes per clock per SM on compute capability 8.6"
std::string unknown_fact(int cc_major, int cc_minor, Fact fact);

// Where a model assumes `assumed` for a fact: why that does not hold on
// this compute capability (the table has no source, or another value);
// nullopt where it holds.
std::optional<std::string> assumption_unmet(int cc_major, int cc_minor, Fact fact, double assumed);

const char* to_string(Basis basis);

}  // namespace membench
