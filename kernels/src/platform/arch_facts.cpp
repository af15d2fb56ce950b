// The architecture facts and their sources. See arch_facts.hpp.
#include "membench/platform/arch_facts.hpp"

#include <stdexcept>

namespace membench {

namespace {

constexpr double KiB = 1024;

// The sources, each named once.
constexpr const char* kBestPracticesSectors =
    "CUDA C++ Best Practices Guide, 'Coalesced Access to Global Memory': on compute capability 6.0 and later, "
    "global loads are served in 32-byte transactions (sectors)";
constexpr const char* kGuideBanks =
    "CUDA C++ Programming Guide, compute capability 5.x 'Shared Memory' (kept by every later one): 32 banks, "
    "successive 32-bit words in successive banks";
constexpr const char* kGuideBankWidth =
    "CUDA C++ Programming Guide, compute capability 5.x 'Shared Memory' (kept by every later one): each bank has "
    "a bandwidth of 32 bits per clock cycle";
constexpr const char* kGuideUnifiedL1Path =
    "derived: the L1 and shared memory are one unit since compute capability 7.0 (CUDA C++ Programming Guide, "
    "compute capability 7.x 'Global Memory'), so the L1 serves through the same 32 banks of 4 bytes a clock";
constexpr const char* kMeasuredDramFetch =
    "measured: Nsight Compute's dram__bytes_read.sum over global/stride and layout/aos (ncu_check.py): a read miss "
    "fetches two sectors, and a lone 4-byte read costs 64 bytes";
constexpr const char* kVoltaWhitepaperL2 =
    "derived: the NVIDIA A100 Tensor Core GPU Architecture whitepaper's comparison table gives V100's L2 read "
    "bandwidth as 2048 bytes per clock; over V100's 80 SMs";
constexpr const char* kAmpereWhitepaperL2 =
    "derived: the NVIDIA A100 Tensor Core GPU Architecture whitepaper gives A100's L2 read bandwidth as 5120 "
    "bytes per clock; over A100's 108 SMs";
constexpr const char* kHopperL2Assumed =
    "assumed: NVIDIA publishes no L2 bandwidth per clock for Hopper; 64 bytes per SM per clock is the model's "
    "ceiling, and the suite's L2 rates stay under it";
constexpr const char* kVoltaTuning = "Volta Tuning Guide, 'Unified Shared Memory/L1/Texture Cache': 128 KB per SM";
constexpr const char* kTuringTuning = "Turing Tuning Guide, 'Unified Shared Memory/L1/Texture Cache': 96 KB per SM";
constexpr const char* kAmpereTuning80 =
    "NVIDIA Ampere GPU Architecture Tuning Guide, 'Unified Shared Memory/L1/Texture Cache': 192 KB per SM on "
    "compute capability 8.0 and 8.7";
constexpr const char* kAmpereTuning86 =
    "NVIDIA Ampere GPU Architecture Tuning Guide, 'Unified Shared Memory/L1/Texture Cache': 128 KB per SM on "
    "compute capability 8.6";
constexpr const char* kAdaTuning = "Ada Tuning Guide, 'Unified Shared Memory/L1/Texture Cache': 128 KB per SM";
constexpr const char* kHopperTuning = "Hopper Tuning Guide, 'Unified Shared Memory/L1/Texture Cache': 256 KB per SM";
constexpr const char* kBlackwellTuning100 =
    "Blackwell Tuning Guide, 'Unified Shared Memory/L1/Texture Cache': 256 KB per SM on compute capability 10.0";
constexpr const char* kBlackwellTuning120 =
    "Blackwell Tuning Guide, 'Unified Shared Memory/L1/Texture Cache': 128 KB per SM on compute capability 12.0";
constexpr const char* kPascalNvlink = "NVIDIA Tesla P100 whitepaper: NVLink 1, 20 GB/s per link and direction";
constexpr const char* kVoltaNvlink =
    "NVIDIA Tesla V100 GPU Architecture whitepaper: NVLink 2, 25 GB/s per link and direction";
constexpr const char* kAmpereNvlink =
    "derived: the NVIDIA A100 Tensor Core GPU Architecture whitepaper gives NVLink 3 as 12 links of 600 GB/s in "
    "all, both directions; over 12 links and 2 directions";
constexpr const char* kHopperNvlink =
    "derived: the NVIDIA H100 Tensor Core GPU Architecture whitepaper gives NVLink 4 as 18 links of 900 GB/s in "
    "all, both directions; over 18 links and 2 directions";
constexpr const char* kBlackwellNvlink =
    "derived: the Blackwell Tuning Guide, 'Fifth-Generation NVLink', gives 18 links of 1.8 TB/s in all, both "
    "directions; over 18 links and 2 directions";
constexpr const char* kGuideClusters =
    "CUDA C++ Programming Guide, 'Thread Block Clusters' and 'Distributed Shared Memory': compute capability 9.0 "
    "and later";
constexpr const char* kGuideTma =
    "CUDA C++ Programming Guide, 'Asynchronous Data Copies using the Tensor Memory Accelerator (TMA)': compute "
    "capability 9.0 and later";

constexpr const char* kGuideThroughput =
    "CUDA C++ Programming Guide, 'Arithmetic Instructions', the throughput of native arithmetic instructions "
    "(results per clock cycle per multiprocessor)";
constexpr const char* kBf16AsFp16 =
    "assumed: the Programming Guide's throughput table has no bfloat16 row; a bfloat162 multiply-add (HFMA2.BF16) "
    "issues to the same pipe as a half2 one, so the 16-bit floating-point rate is the model's ceiling";
constexpr const char* kAmpereTensor =
    "derived: the NVIDIA A100 Tensor Core GPU Architecture whitepaper gives 312 dense BF16 TFLOPS on 108 SMs at "
    "1410 MHz: 2048 operations an SM each clock";
constexpr const char* kHopperTensor =
    "derived: the NVIDIA H100 Tensor Core GPU Architecture whitepaper gives the fourth-generation tensor core twice "
    "A100's dense rate an SM clock for clock (989.4 dense BF16 TFLOPS on 132 SMs at 1830 MHz): 4096 operations an "
    "SM each clock, reached by wgmma";

constexpr const char* kAmpereTf32 =
    "derived: the NVIDIA A100 Tensor Core GPU Architecture whitepaper gives 156 dense TF32 TFLOPS on 108 SMs at "
    "1410 MHz: 1024 operations an SM each clock";
constexpr const char* kHopperTf32 =
    "derived: the NVIDIA H100 Tensor Core GPU Architecture whitepaper gives 494.7 dense TF32 TFLOPS on 132 SMs at "
    "1830 MHz: 2048 operations an SM each clock, reached by wgmma";
constexpr const char* kHopperFp8 =
    "derived: the NVIDIA H100 Tensor Core GPU Architecture whitepaper gives 1978.9 dense FP8 TFLOPS on 132 SMs at "
    "1830 MHz: 8192 operations an SM each clock, reached by wgmma";

using F = Fact;
using B = Basis;

SourcedValue doc(double v, const char* s) { return {v, B::documented, s}; }

// A row's compute pipes: the Programming Guide's throughput table (fp32,
// fp64, fp16, int32 multiply-add), bfloat16 as fp16 where it has the
// instruction (8.0 and later), and the tensor cores' dense rate where a
// whitepaper gives it.
std::vector<std::pair<Fact, SourcedValue>> pipes(double fp32, double fp64, double fp16, double int32, bool bf16) {
  std::vector<std::pair<Fact, SourcedValue>> p = {{F::fp32_fma_per_clock, doc(fp32, kGuideThroughput)},
                                                  {F::fp64_fma_per_clock, doc(fp64, kGuideThroughput)},
                                                  {F::fp16_fma_per_clock, doc(fp16, kGuideThroughput)},
                                                  {F::int32_mad_per_clock, doc(int32, kGuideThroughput)}};
  if (bf16) p.push_back({F::bf16_fma_per_clock, {fp16, B::assumed, kBf16AsFp16}});
  return p;
}

std::vector<std::pair<Fact, SourcedValue>> joined(std::vector<std::pair<Fact, SourcedValue>> a,
                                                  const std::vector<std::pair<Fact, SourcedValue>>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// What every row of compute capability 7.0 and later has.
std::vector<std::pair<Fact, SourcedValue>> common(bool sm90_features) {
  return {{F::sector_bytes, doc(32, kBestPracticesSectors)},
          {F::shared_banks, doc(32, kGuideBanks)},
          {F::shared_bank_bytes, doc(4, kGuideBankWidth)},
          {F::l1_bytes_per_clock, {128, B::derived, kGuideUnifiedL1Path}},
          {F::clusters, doc(sm90_features ? 1 : 0, kGuideClusters)},
          {F::tensor_memory_accelerator, doc(sm90_features ? 1 : 0, kGuideTma)}};
}

ArchRow row(int major, int minor, bool sm90_features, std::vector<std::pair<Fact, SourcedValue>> own) {
  ArchRow r{major, minor, common(sm90_features)};
  r.facts.insert(r.facts.end(), own.begin(), own.end());
  return r;
}

}  // namespace

const std::vector<FactSpec>& fact_specs() {
  static const std::vector<FactSpec> specs = {
      {F::sector_bytes, "sector_bytes", "B", "the L1's and the L2's unit of access to global memory"},
      {F::dram_fetch_bytes, "dram_fetch_bytes", "B", "what the L2 reads from DRAM for one read miss"},
      {F::shared_banks, "shared_banks", "banks", "shared-memory banks"},
      {F::shared_bank_bytes, "shared_bank_bytes", "B/clk", "bytes one bank serves each SM clock"},
      {F::l1_bytes_per_clock, "l1_bytes_per_clock", "B/clk", "bytes the L1 serves one SM each clock"},
      {F::l2_bytes_per_clock_per_sm, "l2_bytes_per_clock_per_sm", "B/clk",
       "the L2's read bandwidth per SM, in bytes each SM clock"},
      {F::unified_l1_bytes, "unified_l1_bytes", "B", "an SM's unified L1 data cache and shared memory"},
      {F::nvlink_bytes_per_link, "nvlink_bytes_per_link", "B/s", "one NVLink's rate in one direction"},
      {F::clusters, "clusters", "flag", "thread-block clusters and distributed shared memory"},
      {F::tensor_memory_accelerator, "tensor_memory_accelerator", "flag", "bulk copies and tensor maps"},
      {F::fp32_fma_per_clock, "fp32_fma_per_clock", "FMA/clk", "32-bit floating-point multiply-adds an SM each clock"},
      {F::fp64_fma_per_clock, "fp64_fma_per_clock", "FMA/clk", "64-bit floating-point multiply-adds an SM each clock"},
      {F::fp16_fma_per_clock, "fp16_fma_per_clock", "FMA/clk", "16-bit floating-point multiply-adds an SM each clock"},
      {F::bf16_fma_per_clock, "bf16_fma_per_clock", "FMA/clk", "bfloat16 multiply-adds an SM each clock"},
      {F::int32_mad_per_clock, "int32_mad_per_clock", "MAD/clk", "32-bit integer multiply-adds an SM each clock"},
      {F::tensor_bf16_flops_per_clock, "tensor_bf16_flops_per_clock", "FLOP/clk",
       "dense bfloat16 tensor-core operations (fp32 accumulate) an SM each clock"},
      {F::tensor_tf32_flops_per_clock, "tensor_tf32_flops_per_clock", "FLOP/clk",
       "dense tf32 tensor-core operations (fp32 accumulate) an SM each clock"},
      {F::tensor_fp8_flops_per_clock, "tensor_fp8_flops_per_clock", "FLOP/clk",
       "dense fp8 tensor-core operations (fp32 accumulate) an SM each clock"},
  };
  return specs;
}

const FactSpec& spec_of(Fact fact) { return fact_specs().at(static_cast<std::size_t>(fact)); }

const std::vector<ArchRow>& arch_table() {
  static const std::vector<ArchRow> table = {
      {6, 0, {{F::sector_bytes, doc(32, kBestPracticesSectors)}, {F::nvlink_bytes_per_link, doc(20e9, kPascalNvlink)}}},
      row(7, 0, false,
          joined({{F::l2_bytes_per_clock_per_sm, {2048.0 / 80, B::derived, kVoltaWhitepaperL2}},
                  {F::unified_l1_bytes, doc(128 * KiB, kVoltaTuning)},
                  {F::nvlink_bytes_per_link, doc(25e9, kVoltaNvlink)}},
                 pipes(64, 32, 128, 64, false))),
      row(7, 5, false, {{F::unified_l1_bytes, doc(96 * KiB, kTuringTuning)}}),
      row(8, 0, false,
          joined({{F::l2_bytes_per_clock_per_sm, {5120.0 / 108, B::derived, kAmpereWhitepaperL2}},
                  {F::unified_l1_bytes, doc(192 * KiB, kAmpereTuning80)},
                  {F::nvlink_bytes_per_link, {600e9 / 2 / 12, B::derived, kAmpereNvlink}},
                  {F::tensor_bf16_flops_per_clock, {2048, B::derived, kAmpereTensor}},
                  {F::tensor_tf32_flops_per_clock, {1024, B::derived, kAmpereTf32}}},
                 pipes(64, 32, 256, 64, true))),
      row(8, 6, false, {{F::unified_l1_bytes, doc(128 * KiB, kAmpereTuning86)}}),
      row(8, 7, false, {{F::unified_l1_bytes, doc(192 * KiB, kAmpereTuning80)}}),
      row(8, 9, false, joined({{F::unified_l1_bytes, doc(128 * KiB, kAdaTuning)}}, pipes(128, 2, 128, 64, true))),
      row(9, 0, true,
          joined({{F::dram_fetch_bytes, {64, B::measured, kMeasuredDramFetch}},
                  {F::l2_bytes_per_clock_per_sm, {64, B::assumed, kHopperL2Assumed}},
                  {F::unified_l1_bytes, doc(256 * KiB, kHopperTuning)},
                  {F::nvlink_bytes_per_link, {900e9 / 2 / 18, B::derived, kHopperNvlink}},
                  {F::tensor_bf16_flops_per_clock, {4096, B::derived, kHopperTensor}},
                  {F::tensor_tf32_flops_per_clock, {2048, B::derived, kHopperTf32}},
                  {F::tensor_fp8_flops_per_clock, {8192, B::derived, kHopperFp8}}},
                 pipes(128, 64, 256, 64, true))),
      row(10, 0, true,
          {{F::unified_l1_bytes, doc(256 * KiB, kBlackwellTuning100)},
           {F::nvlink_bytes_per_link, {1.8e12 / 2 / 18, B::derived, kBlackwellNvlink}}}),
      row(12, 0, true, {{F::unified_l1_bytes, doc(128 * KiB, kBlackwellTuning120)}}),
  };
  return table;
}

std::optional<SourcedValue> arch_fact(int cc_major, int cc_minor, Fact fact) {
  for (const ArchRow& r : arch_table()) {
    if (r.cc_major != cc_major || r.cc_minor != cc_minor) continue;
    for (const auto& [f, v] : r.facts)
      if (f == fact) return v;
  }
  return std::nullopt;
}

double arch_value_or_zero(int cc_major, int cc_minor, Fact fact) {
  const auto v = arch_fact(cc_major, cc_minor, fact);
  return v ? v->value : 0;
}

std::string unknown_fact(int cc_major, int cc_minor, Fact fact) {
  return std::string("no source for ") + spec_of(fact).meaning + " (" + spec_of(fact).name +
         ") on compute capability " + std::to_string(cc_major) + "." + std::to_string(cc_minor);
}

std::optional<std::string> assumption_unmet(int cc_major, int cc_minor, Fact fact, double assumed) {
  const auto v = arch_fact(cc_major, cc_minor, fact);
  if (!v) return unknown_fact(cc_major, cc_minor, fact);
  if (v->value == assumed) return std::nullopt;
  return std::string("the model assumes ") + spec_of(fact).name + " " + std::to_string(assumed) +
         "; compute capability " + std::to_string(cc_major) + "." + std::to_string(cc_minor) + " has " +
         std::to_string(v->value) + " (" + v->source + ")";
}

const char* to_string(Basis basis) {
  switch (basis) {
    case Basis::documented: return "documented";
    case Basis::derived: return "derived";
    case Basis::measured: return "measured";
    case Basis::assumed: return "assumed";
  }
  return "?";
}

}  // namespace membench
