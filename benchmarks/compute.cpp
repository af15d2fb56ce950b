//==============================================================================
// compute: the compute pipes' ceilings, beside the memory levels' bandwidths
//
// Whether a kernel is bound by its bytes or by its arithmetic is read off a
// roofline, and a roofline needs both ceilings measured on the GPU at hand.
// Each variant keeps one pipe busy with chains of dependent multiply-adds
// (fp32 FFMA, fp64 DFMA, fp16x2 and bf16x2 HFMA2, int32 IMAD, and the tensor
// cores' mma.sync with bfloat16 in and wgmma with bfloat16, tf32 and fp8 in,
// each accumulated in fp32), reading and writing next to nothing.
//
// The hypothesis: a pipe reaches its peak once enough independent
// multiply-adds are in flight to cover its latency: `chains` a thread
// times the warps `occupancy` blocks an SM give. Below that the rate grows
// with both; above it, it stays at the peak.
//
// The model: the pipe's peak at the clock the case ran at, its results an
// SM each clock (the architecture facts, from the Programming Guide's
// throughput table; the tensor cores' from the whitepapers) x SMs x the SM
// clock measured inside the batches x operations a result (a multiply-add
// is two). pct_of_peak is ops_per_second against it, so a GPU whose clock
// sags under load still reads how well the pipe was fed; a batch below the
// throttle threshold is kept, since its clock is what the model is taken at.
// mma.sync is Ampere's tensor-core instruction; on Hopper the dense peak is
// reached by wgmma (sm_90a code), so mma_bf16 and wgmma_bf16 side by side show
// what the older instruction leaves; wgmma_tf32 and wgmma_e4m3 are the same
// warpgroup's tf32 and fp8 rates. These issue the tensor cores' own
// instructions rather than time a library's GEMM: the ceiling is the pipe's,
// with no tile loads, epilogue or tuning choice between it and the number. Verified exactly: every chain's last value
// against the host's.
//==============================================================================
#include <cstdint>
#include <memory>
#include <string>

#include "cases/family.hpp"
#include "cases/planned.hpp"
#include "membench/compute.hpp"
#include "membench/platform/cuda.hpp"

namespace membench::cases {

namespace {

constexpr std::uint32_t kSeed = 0xC0;

// The model counter that gives pct_of_peak again as the pipe's busy share,
// which Nsight Compute's utilisation of the pipe the variant issues to
// checks (counters.cpp names the metric): FFMA the FMA pipe, IMAD its heavy
// half, HFMA2 the 16-bit multiply-adds' issue slots (the compiler sends
// half of them to the tensor pipe as HFMA2.MMA), DFMA the FP64 pipe, the
// tensor instructions the tensor pipe. mma.sync on a compute capability 9.0
// GPU keeps the tensor pipe busy at a rate under wgmma's peak, so its busy
// share is not its pct_of_peak: it reports none.
std::string pipe_busy(ComputeVariant v, const DeviceInfo& gpu, Work& w) {
  switch (v) {
    case ComputeVariant::fp32: return "fma_pipe_busy_pct";
    case ComputeVariant::int32: return "fmaheavy_pipe_busy_pct";
    case ComputeVariant::fp16x2:
    case ComputeVariant::bf16x2: return "fp16_pipe_busy_pct";
    case ComputeVariant::fp64: return "fp64_pipe_busy_pct";
    case ComputeVariant::wgmma_bf16:
    case ComputeVariant::wgmma_tf32:
    case ComputeVariant::wgmma_e4m3: return "tensor_pipe_busy_pct";
    case ComputeVariant::mma_bf16:
      if (gpu.cc_major < 9) return "tensor_pipe_busy_pct";
      w.unknown.push_back(
          "tensor_pipe_busy_pct: on compute capability 9.0 mma.sync fills the tensor pipe below "
          "wgmma's rate, the peak");
      return "";
  }
  return "";
}

CaseDefinition define(const ComputeConfig& c, const DeviceInfo& gpu) {
  const bool wgmma = c.variant == ComputeVariant::wgmma_bf16 || c.variant == ComputeVariant::wgmma_tf32 ||
                     c.variant == ComputeVariant::wgmma_e4m3;
  if (wgmma && c.ilp > 2) throw CaseSkipped("wgmma keeps 64 accumulators a thread each chain: 1 or 2 chains");
  ComputePlan plan;
  const cudaError_t rc = membench::plan(c, &plan);
  const std::string here = " (this GPU: " + std::to_string(gpu.cc_major) + "." + std::to_string(gpu.cc_minor) + ")";
  if (rc == cudaErrorNotSupported && wgmma)
    throw CaseSkipped("wgmma needs sm_90a code (a build that carries 90) and a compute capability 9.0 GPU" + here);
  if (rc == cudaErrorNotSupported)
    throw CaseSkipped(std::string(c.variant == ComputeVariant::bf16x2 ? "bfloat16 arithmetic" : "mma.sync") +
                      " needs compute capability 8.0, in the GPU and in the code that runs" + here);
  if (rc == cudaErrorInvalidConfiguration)
    throw CaseSkipped(std::to_string(c.occupancy) + " blocks of " + std::to_string(kComputeBlock) +
                      " threads do not fit on an SM with this kernel's registers");
  MEMBENCH_CUDA(rc);

  const bool doubles = compute_writes_doubles(c.variant);
  CaseDefinition d;
  d.input_elements = kComputeInput;
  d.output_elements = compute_outputs(c);
  d.output_type = doubles ? Element::f64 : Element::f32;
  d.seed = kSeed;
  d.bind = [plan, doubles](const CaseBuffers& buffers, cudaStream_t, BoundLaunch* bound) {
    bound->shape = plan.shape;
    void* out = doubles ? static_cast<void*>(buffers.output<double>()) : static_cast<void*>(buffers.output<float>());
    bound->run = [plan, in = buffers.input<float>(), out](cudaStream_t s) { return launch(plan, in, out, s); };
    return cudaSuccess;
  };
  const auto reference = std::make_shared<const ComputeReference>(c, kSeed);
  if (doubles)
    d.expected_f64 = [reference](std::size_t i) { return (*reference)(i); };
  else
    d.expected = [reference](std::size_t i) { return static_cast<float>((*reference)(i)); };
  d.paced_by_clock = true;
  d.work.ops = compute_ops(c);
  d.work.peak_ops_per_clock = compute_peak_ops_per_clock(c, gpu.cc_major, gpu.cc_minor);
  const Fact pipe = compute_pipe(c.variant).fact;
  if (d.work.peak_ops_per_clock <= 0)
    d.work.unknown.push_back("pct_of_peak: " + unknown_fact(gpu.cc_major, gpu.cc_minor, pipe));
  else if (const auto fact = arch_fact(gpu.cc_major, gpu.cc_minor, pipe); fact && fact->basis == Basis::assumed)
    d.work.peak_assumed = true;
  if (d.work.peak_ops_per_clock > 0) d.work.pipe_busy = pipe_busy(c.variant, gpu, d.work);
  return d;
}

void cases(Family& f) {
  for (ComputeVariant v : kComputeVariants.all()) {
    const std::string name(kComputeVariants(v));
    const std::string kernel = compute_pipe(v).tile_k == 0     ? "compute_chain"
                               : v == ComputeVariant::mma_bf16 ? "compute_mma_bf16"
                                                               : "compute_wgmma";
    f.add(name, {"chains", "occupancy"}, {kernel}, [v](const CaseArgs& a) {
      return define({v, a.integer("chains"), a.integer("occupancy"), a.device().sm_count}, a.device());
    });
  }
}

const Registrar registrar{
    {"compute",
     {axis_of<ComputeIlp>("chains", "chains", "independent multiply-add chains each thread runs", {1, 2, 4, 8, 16}),
      axis("occupancy", "blocks/SM", "blocks of " + std::to_string(kComputeBlock) + " threads resident on each SM",
           {1, 2, 4, 8}, 1, 32)},
     cases,
     {"Compute pipes: multiply-adds a second, against each pipe's peak at the measured clock",
      {figure("by the chains in flight (the best occupancy)", "chains", "ops_per_second")
           .log_y()
           .best_over({"occupancy"})
           .model("model_ops_per_second")},
      "",
      {},
      // The check's compute cases: the FP32 pipe at its ceiling, and the tensor cores through mma.sync, the
      // instruction every architecture from 8.0 runs (on 9.0 it reaches a steady share of wgmma's peak).
      {check_case(CheckLevel::fp32_fma, "ops_per_second", at("fp32", {{"chains", 8}, {"occupancy", 8}})),
       check_case(CheckLevel::tensor_cores, "ops_per_second", at("mma_bf16", {{"chains", 8}, {"occupancy", 4}}))},
      {roof("fp32 FMA", "ops_per_second", at("fp32")), roof("fp64 FMA", "ops_per_second", at("fp64")),
       roof("fp16x2 FMA", "ops_per_second", at("fp16x2")), roof("bf16x2 FMA", "ops_per_second", at("bf16x2")),
       roof("int32 IMAD", "ops_per_second", at("int32")),
       roof("bf16 tensor, mma.sync", "ops_per_second", at("mma_bf16")),
       roof("bf16 tensor, wgmma", "ops_per_second", at("wgmma_bf16")),
       roof("tf32 tensor, wgmma", "ops_per_second", at("wgmma_tf32")),
       roof("fp8 tensor, wgmma", "ops_per_second", at("wgmma_e4m3"))}}}};

}  // namespace

}  // namespace membench::cases
