// The cost of a read-modify-write: every thread of a resident grid adds 1,
// `updates` times, to an address it shares with the threads of its group
// (the whole grid, its block, its warp, or none), by atomicAdd whose old
// value is used, or by a reduction that returns nothing (red), in
// global or in shared memory, on 32- and 64-bit integers and floats.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "membench/platform/cuda.hpp"
#include "membench/platform/int_list.hpp"
#include "membench/platform/kernel_shape.hpp"

namespace membench {

inline constexpr int kAtomicsBlock = 256;

// add: atomicAdd, each old value summed by its thread (the tickets); red: the
// PTX reduction (red.global / red.shared), which returns nothing.
enum class AtomicVariant { add, red };
inline constexpr auto kAtomicVariants = enum_names<AtomicVariant>("add", "red");
enum class AtomicType { u32, u64, f32, f64 };
inline constexpr auto kAtomicTypes = enum_names<AtomicType>("u32", "u64", "f32", "f64");
enum class AtomicSpace { global, shared };
inline constexpr auto kAtomicSpaces = enum_names<AtomicSpace>("global", "shared");
// The threads that update one address together.
enum class AtomicSharing { grid, block, warp, thread };
inline constexpr auto kAtomicSharings = enum_names<AtomicSharing>("grid", "block", "warp", "thread");

struct AtomicsConfig {
  AtomicVariant variant = AtomicVariant::red;
  AtomicType type = AtomicType::u32;
  AtomicSpace space = AtomicSpace::global;
  AtomicSharing shared_by = AtomicSharing::thread;
  int updates = 16;  // per thread
};

inline constexpr int kAtomicsMaxUpdates = 1024;
std::size_t atomic_type_bytes(AtomicType t);

// Whether a config can run on a grid of `grid` blocks (float sums must stay
// exact: at most 2^24 updates of one f32 address); otherwise why not.
bool atomics_config_supported(const AtomicsConfig& c, unsigned grid, std::string* why);

// How a grid of `grid` blocks of kAtomicsBlock threads spreads over addresses.
struct AtomicsLayout {
  std::uint64_t threads = 0;
  std::uint64_t members = 0;    // threads per address
  std::uint64_t addresses = 0;  // in use at once: in global memory, or summed over all blocks in shared memory
  std::uint64_t updates_per_address = 0;
  double updates = 0;  // per launch
};
AtomicsLayout atomics_layout(const AtomicsConfig& c, unsigned grid);

// The model: updates to one address are applied one after another by the
// unit that owns it (an L2 slice, or a shared-memory bank), at most one per
// SM clock; updates to different addresses proceed in parallel, at most one
// warp-wide instruction (32 updates) per SM per clock.
double atomics_model_updates_per_second(const AtomicsLayout& l, int sm_count, double sm_clock_hz);

// What the hardware is asked, per launch. In global memory the SM sends a
// warp's updates of one address as one L2 request per lane (it combines
// none of them), and a warp's 32 distinct neighbouring words as one:
// model_l2_requests. In shared memory an atomicAdd of a 32-bit integer takes
// one wavefront per lane when lanes share the address and one per warp when
// none do, and a reduction one per warp either way (the compiler makes an
// increment by 1 a population-count increment, ATOMS.POPC.INC, which adds
// the lanes of each address at once): model_shared_wavefronts. 64-bit and
// float additions in shared memory are compare-and-swap loops
// (ATOMS.CAST.SPIN), whose retries no model counts (nullopt).
double atomics_model_l2_requests(const AtomicsConfig& c, const AtomicsLayout& l);
std::optional<double> atomics_model_shared_wavefronts(const AtomicsConfig& c, const AtomicsLayout& l);

// Where the targets lie changes the rate (the hypothesis): an address's L2
// slice follows from its physical address, and when the lines in use are few
// (a word a warp: 32 warps to a line) the slice that holds the most of them
// sets the time, so one allocation measures above or below the next. A
// global target with more than one address therefore takes turns over
// kAtomicsPlacements placements, each on its own 2 MiB page at its own
// offset within it, one a launch, and the rate is their mean; one address
// (whichever slice owns it does all the work) and shared memory have one.
inline constexpr int kAtomicsPlacements = 64;

// The targets of one placement as an array of the config's word, the
// alternatives in AtomicType's order.
using AtomicTarget = std::variant<unsigned int*, unsigned long long*, float*, double*>;

// The launch worked out once: a resident grid, and where its results go.
// target: one value per address (global), or the block's slots written back
// (shared); tickets: per thread, the sum of the old values its updates
// returned (add only), as doubles.
struct AtomicsPlan {
  using Run = cudaError_t (*)(const AtomicsPlan&, AtomicTarget, double*, cudaStream_t);
  AtomicsConfig config;
  KernelShape shape;
  AtomicsLayout layout;
  std::size_t target_elements = 0;
  std::size_t ticket_elements = 0;
  int placements = 1;
  Run run = nullptr;
};
// The byte offset of placement k (0 .. placements - 1) in the targets'
// allocation, and that allocation's size.
std::size_t atomics_placement_offset(const AtomicsPlan& p, int k);
std::size_t atomics_target_bytes(const AtomicsPlan& p);
// Placement k of an allocation of atomics_target_bytes(p), as the plan's word.
AtomicTarget atomics_target(const AtomicsPlan& p, const DeviceAllocation& targets, int k);
// cudaErrorInvalidValue for a config the grid cannot run (plan->shape then
// holds that grid, for atomics_config_supported to say why).
cudaError_t plan(const AtomicsConfig& c, AtomicsPlan* plan);
// The targets must hold zeros before the first launch; later launches keep
// adding. A target of another word than the plan's is refused
// (cudaErrorInvalidValue) before any CUDA call.
cudaError_t launch(const AtomicsPlan& p, AtomicTarget target, double* tickets, cudaStream_t stream);

// After exactly one launch from zeros, at placement 0: every target holds
// members x updates, and (add) the tickets of each address's group sum to
// N (N - 1) / 2 for its N updates, each old value 0 .. N - 1 returned once;
// `target` is placement 0's. Empty when right.
std::optional<std::string> atomics_check(const AtomicsPlan& p, const std::vector<unsigned char>& target,
                                         const std::vector<double>& tickets);
// The same for the whole allocation (atomics_target_bytes): placement 0 as
// above, every other placement still zero.
std::optional<std::string> atomics_check_placements(const AtomicsPlan& p, const std::vector<unsigned char>& targets,
                                                    const std::vector<double>& tickets);

}  // namespace membench
