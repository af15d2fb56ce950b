#include "cases/counters.hpp"

#include <cctype>
#include <map>

#include "membench/platform/models.hpp"
#include "membench/shared.hpp"

namespace membench::cases {

namespace {

using B = Better;
using K = CounterKind;

// The Nsight Compute metrics the models are checked against.
const std::string kGlobalLoadSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
const std::string kGlobalLoadRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
const std::string kSharedLoadWavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
const std::string kSharedLoads = "smsp__inst_executed_op_shared_ld.sum";

NcuMeasure counted(std::vector<std::string> metrics, std::vector<std::string> per = {}, double scale = 1,
                   std::string judged = "always") {
  return {"counters", std::move(metrics), std::move(per), scale, std::move(judged)};
}

NcuMeasure dram(std::string metric, std::string judged) {
  return {"dram", {std::move(metric)}, {}, 1, std::move(judged)};
}

const std::map<std::string, CounterMeaning>& catalog() {
  static const std::map<std::string, CounterMeaning> table = {
      // Google Benchmark's own numbers, as this suite fills them.
      {"real_time", {"us", B::lower, K::measured, "GPU time per launch, from CUDA events (time_unit says the unit)"}},
      {"cpu_time", {"us", B::neither, K::configuration, "host CPU time of Google Benchmark's report; not the GPU's"}},
      {"iterations",
       {"launches", B::neither, K::configuration, "iterations Google Benchmark saw; real_time is per one"}},
      // The measurement (runner).
      {"bytes", {"B", B::neither, K::configuration, "useful bytes read + written per launch"}},
      {"bytes_per_second", {"B/s", B::higher, K::measured, "useful bytes per second of GPU time"}},
      {"pct_of_peak",
       {"%", B::higher, K::measured,
        "bytes_per_second against the case's peak (DRAM unless it names another); for a compute pipe, "
        "ops_per_second against model_ops_per_second"}},
      {"peak_assumed",
       {"flag", B::neither, K::configuration,
        "1: pct_of_peak is against a ceiling resting on an assumed architecture fact (the context's arch_facts)"}},
      {"latency_ns", {"ns", B::lower, K::measured, "time per dependent load of a pointer chase"}},
      {"latency_cycles", {"cycles", B::lower, K::measured, "latency_ns at the SM clock measured over the batches"}},
      {"updates", {"updates", B::neither, K::configuration, "atomic read-modify-writes per launch"}},
      {"updates_per_second", {"updates/s", B::higher, K::measured, "atomic read-modify-writes per second of GPU time"}},
      {"flops_per_byte", {"FLOP/B", B::neither, K::configuration, "floating-point operations per useful byte"}},
      {"ops", {"op", B::neither, K::configuration, "arithmetic operations per launch (a multiply-add is two)"}},
      {"ops_per_second",
       {"op/s", B::higher, K::measured,
        "arithmetic operations per second of GPU time (FLOP/s on a floating-point pipe; a multiply-add is two)"}},
      {"model_ops_per_second",
       {"op/s", B::neither, K::model,
        "the pipe's peak at the SM clock measured over the batches: its results an SM each clock (the "
        "architecture facts) x SMs x clock x operations a result"}},
      {"gflops_per_second", {"GFLOP/s", B::higher, K::measured, "floating-point operations per second of GPU time"}},
      {"launches",
       {"launches", B::neither, K::configuration, "launches the time rests on (throttled batches left out)"}},
      {"batches", {"batches", B::neither, K::configuration, "batches of launches the time rests on"}},
      {"batch_launches", {"launches", B::neither, K::configuration, "launches per batch between two events"}},
      {"device", {"ordinal", B::neither, K::configuration, "the CUDA device measured"}},
      {"grid", {"blocks", B::neither, K::configuration, "blocks per launch of the case's kernel"}},
      {"block", {"threads", B::neither, K::configuration, "threads per block"}},
      {"blocks_per_sm", {"blocks", B::neither, K::configuration, "resident blocks per SM (occupancy API)"}},
      {"registers", {"registers", B::neither, K::configuration, "registers per thread"}},
      {"smem_per_block", {"B", B::neither, K::configuration, "static + dynamic shared memory per block"}},
      {"resumed", {"flag", B::neither, K::configuration, "1: carried over from --resume's file, not measured again"}},
      {"host_paced",
       {"flag", B::neither, K::configuration,
        "1: the host paces the case's time and noise (pageable staging, a small copy's round trip, page faults)"}},
      // Energy (--energy): the board's power over whole updates of its energy counter.
      {"power_w", {"W", B::neither, K::measured, "board power while the case runs back to back (NVML energy counter)"}},
      {"energy_j", {"J", B::lower, K::measured, "board energy per launch: power_w times the GPU time per launch"}},
      {"pj_per_byte", {"pJ/B", B::lower, K::measured, "board energy per useful byte: power_w over bytes_per_second"}},
      {"pj_per_byte_above_idle",
       {"pJ/B", B::lower, K::measured, "as pj_per_byte, less the board's idle power (the context's idle_power_w)"}},
      {"energy_window_s",
       {"s", B::neither, K::configuration, "time between the energy counter's updates the power rests on"}},
      // Health: how far the measurement can be trusted.
      {"noise_pct",
       {"%", B::lower, K::health, "relative spread of the per-launch time over the batches (-1: unknown)"}},
      {"turns_sem_pct",
       {"%", B::lower, K::health,
        "where launches take turns over placements: the standard error of the mean over the turns, each timed "
        "alone (how far another allocation's mean may lie)"}},
      {"noisy",
       {"flag", B::lower, K::health, "1: the stopping rule's noise target was not met, or turns_sem_pct is above it"}},
      {"throttled_batches", {"batches", B::lower, K::health, "batches dropped for an SM clock below the threshold"}},
      {"sm_clock_mhz", {"MHz", B::neither, K::health, "SM clock measured over the kept batches"}},
      {"other_processes", {"processes", B::lower, K::health, "other processes seen on the GPU during the case"}},
      {"contended", {"flag", B::lower, K::health, "1: another process used the GPU during the case"}},
      {"clock_event_reasons", {"bitmask", B::neither, K::health, "NVML clock event reasons seen during the case"}},
      {"clock_event",
       {"flag", B::lower, K::health, "1: a thermal or hardware clock slowdown during the case (no evidence)"}},
      {"power_capped",
       {"flag", B::neither, K::health,
        "1: the board's power cap held the clock during the case (its own draw: judged, unless batches were "
        "throttled)"}},
      {"noise_target_pct", {"%", B::neither, K::health, "the noise target noisy was judged at"}},
      // The families' models and their configuration.
      {"sectors_per_request", {"sectors", B::neither, K::model, "32-byte sectors per warp load request"}},
      {"store_sectors_per_request", {"sectors", B::neither, K::model, "32-byte sectors per warp store request"}},
      {"constant_serialization",
       {"requests", B::neither, K::model, "requests the constant cache serves one after another for a warp read"}},
      {"local_load_bytes", {"B", B::neither, K::model, "bytes of local-memory loads the L1 serves per launch"}},
      {"local_store_bytes", {"B", B::neither, K::model, "bytes of local-memory stores the L1 takes per launch"}},
      {"local_bytes_per_thread",
       {"B", B::neither, K::configuration, "local memory per thread the compiler gave the kernel"}},
      {"dram_efficiency", {"ratio", B::neither, K::model, "useful bytes per byte of the sectors fetched"}},
      {"dram_read_bytes", {"B", B::neither, K::model, "bytes read from DRAM per launch"}},
      {"dram_write_bytes", {"B", B::neither, K::model, "bytes written to DRAM per launch"}},
      {"l2_read_bytes", {"B", B::neither, K::model, "bytes the L2 serves per launch"}},
      {"l2_write_bytes", {"B", B::neither, K::model, "sector bytes the L1 writes to the L2 per launch"}},
      {"dram_read_bytes_bound",
       {"B", B::neither, K::model, "the most bytes DRAM should read per launch (no reuse in the L2)"}},
      {"dram_write_bytes_bound",
       {"B", B::neither, K::model, "the most bytes DRAM should write per launch (no merging in the L2)"}},
      {"conflict_ways", {"ways", B::neither, K::model, "shared-memory bank conflict degree"}},
      {"store_conflict_ways", {"ways", B::neither, K::model, "shared-memory bank conflict degree of the stores"}},
      {"wavefronts_per_request", {"wavefronts", B::neither, K::model, "shared-memory wavefronts per warp request"}},
      {"model_level", {"level", B::neither, K::model, "the memory level that serves the case (1 L1, 2 L2, 3 DRAM)"}},
      {"model_bytes_per_second", {"B/s", B::neither, K::model, "the ceiling the model predicts for bytes_per_second"}},
      {"model_updates_per_second", {"updates/s", B::neither, K::model, "the serial bound the model predicts"}},
      {"model_migrated_bytes", {"B", B::neither, K::model, "bytes the driver should migrate (64 KiB blocks)"}},
      {"model_dram_read_bytes", {"B", B::neither, K::model, "bytes read from DRAM per launch under the access policy"}},
      {"model_l2_hot_bytes", {"B", B::neither, K::model, "bytes of the hot buffer served by persisting L2 lines"}},
      {"model_persisting_bytes", {"B", B::neither, K::model, "bytes of the hot buffer that persist"}},
      {"model_l2_requests", {"requests", B::neither, K::model, "L2 atomic requests per launch"}},
      {"model_shared_wavefronts", {"wavefronts", B::neither, K::model, "shared-memory atomic wavefronts per launch"}},
      {"link_bytes", {"B", B::neither, K::model, "bytes that cross the host link per launch"}},
      {"pages_read", {"pages", B::neither, K::model, "4 KiB pages a launch reads"}},
      {"chain_nodes", {"nodes", B::neither, K::configuration, "nodes in the pointer chase's cycle"}},
      {"link_generation", {"generation", B::neither, K::configuration, "PCIe generation of the host link"}},
      {"link_width", {"lanes", B::neither, K::configuration, "PCIe lanes of the host link"}},
      {"set_aside_bytes", {"B", B::neither, K::configuration, "L2 bytes set aside for persisting lines"}},
      {"updates_per_address", {"updates", B::neither, K::configuration, "updates that share one address per launch"}},
      {"addresses", {"addresses", B::neither, K::configuration, "distinct addresses updated"}},
      {"placements",
       {"placements", B::neither, K::configuration,
        "places of the buffers the launches take turns over (the atomics' targets, a chase's chain)"}},
      // A compute pipe's busy share, as its timed rate implies (ncu's utilisation of the pipe checks it).
      {"fma_pipe_busy_pct", {"%", B::neither, K::model, "share of cycles the FMA pipe is busy: pct_of_peak"}},
      {"fmaheavy_pipe_busy_pct",
       {"%", B::neither, K::model, "share of cycles the FMA pipe's heavy half (IMAD) is busy: pct_of_peak"}},
      {"fp16_pipe_busy_pct",
       {"%", B::neither, K::model, "share of issue slots the 16-bit multiply-adds take: pct_of_peak"}},
      {"fp64_pipe_busy_pct", {"%", B::neither, K::model, "share of cycles the FP64 pipe is busy: pct_of_peak"}},
      {"tensor_pipe_busy_pct", {"%", B::neither, K::model, "share of cycles the tensor pipe is busy: pct_of_peak"}},
      {"remote", {"flag", B::neither, K::configuration, "1: reads another block's shared memory"}},
      {"nvlink_links", {"links", B::neither, K::configuration, "NVLinks between the two GPUs (0: PCIe)"}},
      {"peer_device", {"ordinal", B::neither, K::configuration, "the other GPU of a peer case"}},
      {"gpu_numa_node",
       {"node", B::neither, K::configuration, "the host NUMA node the GPU's PCIe slot hangs off (-1: not known)"}},
      {"host_numa_node",
       {"node", B::neither, K::configuration,
        "the NUMA node the host buffer's pages lie on, read back from the kernel (-1: not known, -2: split)"}},
      {"devices", {"GPUs", B::neither, K::configuration, "GPUs that copy at once"}},
      // Measured by the driver (CUPTI) or per GPU of a node.
      {"migrated_bytes", {"B", B::neither, K::measured, "bytes the driver migrated per launch (CUPTI)"}},
      {"migrated_htod_bytes", {"B", B::neither, K::measured, "bytes migrated host to device per launch (CUPTI)"}},
      {"migrated_dtoh_bytes", {"B", B::neither, K::measured, "bytes migrated device to host per launch (CUPTI)"}},
      {"gpu_fault_groups", {"groups", B::neither, K::measured, "GPU page-fault groups per launch (CUPTI)"}},
      {"gpu_faults", {"faults", B::neither, K::measured, "GPU page faults per launch (CUPTI)"}},
      {"sum_of_devices_bytes_per_second", {"B/s", B::higher, K::measured, "the GPUs' own rates, summed"}},
  };
  return table;
}

// The Nsight Compute counter each model counter predicts (ncu_check.py checks it).
const std::map<std::string, NcuMeasure>& measures() {
  static const std::map<std::string, NcuMeasure> table = {
      {"sectors_per_request", counted({kGlobalLoadSectors}, {kGlobalLoadRequests})},
      {"store_sectors_per_request", counted({"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"},
                                            {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"})},
      {"local_load_bytes", counted({"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"}, {}, 32)},
      {"local_store_bytes", counted({"l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"}, {}, 32)},
      {"dram_read_bytes", dram("dram__bytes_read.sum", "large")},
      {"dram_write_bytes", dram("dram__bytes_write.sum", "large")},
      {"l2_read_bytes", counted({"lts__t_sectors_srcunit_tex_op_read.sum"}, {}, 32, "beyond_l1")},
      {"l2_write_bytes", counted({"lts__t_sectors_srcunit_tex_op_write.sum"}, {}, 32)},
      {"dram_read_bytes_bound", dram("dram__bytes_read.sum", "at_most")},
      {"dram_write_bytes_bound", dram("dram__bytes_write.sum", "at_most")},
      {"constant_serialization", counted({"idc__requests.sum"}, {"smsp__inst_executed_op_ldc.sum"})},
      {"conflict_ways", counted({kSharedLoadWavefronts}, {kSharedLoads}, 1, "never")},
      {"wavefronts_per_request", counted({kSharedLoadWavefronts}, {kSharedLoads})},
      {"model_dram_read_bytes", dram("dram__bytes_read.sum", "always")},
      // Per SM, over its active cycles, as a percentage of the pipe's sustained peak.
      {"fma_pipe_busy_pct", counted({"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"})},
      {"fmaheavy_pipe_busy_pct", counted({"sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active"})},
      {"fp16_pipe_busy_pct", counted({"sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_active"})},
      {"fp64_pipe_busy_pct", counted({"sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active"})},
      {"tensor_pipe_busy_pct", counted({"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"})},
      {"model_l2_requests",
       counted({"lts__t_requests_srcunit_tex_op_atom.sum", "lts__t_requests_srcunit_tex_op_red.sum"})},
      {"model_shared_wavefronts", counted({"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"})},
  };
  return table;
}

// device<i>_bytes_per_second: one GPU's own rate in a node-wide copy.
bool is_device_rate(const std::string& name) {
  const std::string head = "device", tail = "_bytes_per_second";
  if (name.size() <= head.size() + tail.size() || name.compare(0, head.size(), head) != 0 ||
      name.compare(name.size() - tail.size(), tail.size(), tail) != 0)
    return false;
  for (std::size_t i = head.size(); i < name.size() - tail.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return false;
  return true;
}

}  // namespace

std::optional<CounterMeaning> counter_meaning(const std::string& name) {
  if (const auto it = catalog().find(name); it != catalog().end()) return it->second;
  if (is_device_rate(name))
    return CounterMeaning{"B/s", B::higher, K::measured, "one GPU's own rate in a node-wide copy"};
  return std::nullopt;
}

std::vector<std::string> counter_names() {
  std::vector<std::string> names;
  for (const auto& [name, meaning] : catalog()) names.push_back(name);
  return names;
}

const std::vector<Headline>& headlines() {
  static const std::vector<Headline> list = {{"bytes_per_second", "model_bytes_per_second"},
                                             {"latency_ns", ""},
                                             {"updates_per_second", "model_updates_per_second"},
                                             {"ops_per_second", "model_ops_per_second"}};
  return list;
}

std::vector<Assumption> model_assumptions(const std::string& counter) {
  const Assumption sectors{Fact::sector_bytes, kSectorBytes};
  const Assumption dram_fetch{Fact::dram_fetch_bytes, kDramReadBytes};
  const Assumption banks{Fact::shared_banks, kSharedBanks};
  const Assumption bank_bytes{Fact::shared_bank_bytes, kBankBytes};
  static const std::map<std::string, std::vector<Assumption>> table = {
      {"sectors_per_request", {sectors}},
      {"store_sectors_per_request", {sectors}},
      {"l2_read_bytes", {sectors}},
      {"l2_write_bytes", {sectors}},
      {"local_load_bytes", {sectors}},
      {"local_store_bytes", {sectors}},
      {"dram_efficiency", {sectors, dram_fetch}},
      {"dram_read_bytes", {sectors, dram_fetch}},
      {"dram_write_bytes", {sectors, dram_fetch}},
      {"dram_read_bytes_bound", {sectors, dram_fetch}},
      {"dram_write_bytes_bound", {sectors, dram_fetch}},
      {"model_dram_read_bytes", {sectors, dram_fetch}},
      {"conflict_ways", {banks, bank_bytes}},
      {"store_conflict_ways", {banks, bank_bytes}},
      {"wavefronts_per_request", {banks, bank_bytes}},
      {"model_shared_wavefronts", {banks, bank_bytes}},
  };
  const auto it = table.find(counter);
  return it == table.end() ? std::vector<Assumption>{} : it->second;
}

std::optional<NcuMeasure> ncu_measure(const std::string& name) {
  if (const auto it = measures().find(name); it != measures().end()) return it->second;
  return std::nullopt;
}

const char* to_string(Better better) {
  switch (better) {
    case Better::higher: return "higher";
    case Better::lower: return "lower";
    case Better::neither: return "neither";
  }
  return "neither";
}

const char* to_string(CounterKind kind) {
  switch (kind) {
    case CounterKind::measured: return "measured";
    case CounterKind::model: return "model";
    case CounterKind::configuration: return "configuration";
    case CounterKind::health: return "health";
  }
  return "configuration";
}

}  // namespace membench::cases
