// The atomics family's kernel, launcher and host check. See atomics.hpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <type_traits>
#include <utility>

#include "membench/atomics.hpp"
#include "platform/launch_utils.cuh"

namespace membench {

namespace kernels {

// The address a thread updates: its index among the addresses in use, in
// global memory (one space for the grid) or in its block's shared slots.
__device__ __forceinline__ std::uint64_t atomic_address(int sharing, bool in_shared) {
  const std::uint64_t thread = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  switch (static_cast<AtomicSharing>(sharing)) {
    case AtomicSharing::grid: return 0;
    case AtomicSharing::block: return in_shared ? 0 : blockIdx.x;
    case AtomicSharing::warp: return in_shared ? threadIdx.x / 32 : thread / 32;
    case AtomicSharing::thread: break;
  }
  return in_shared ? threadIdx.x : thread;
}

// A reduction: adds 1 at p and returns nothing (RED, or ATOMS without a
// destination), written out so that the compiler cannot choose otherwise:
// one instruction a word type, in the address space SPACE, the address held
// in a register of constraint KIND.
#define MEMBENCH_RED_ADD_ONE(SPACE, KIND, ADDRESS)                                      \
  if constexpr (std::is_same_v<T, unsigned int>)                                        \
    asm volatile("red." SPACE ".add.u32 [%0], 1;" ::KIND(ADDRESS) : "memory");          \
  else if constexpr (std::is_same_v<T, unsigned long long>)                             \
    asm volatile("red." SPACE ".add.u64 [%0], 1;" ::KIND(ADDRESS) : "memory");          \
  else if constexpr (std::is_same_v<T, float>)                                          \
    asm volatile("red." SPACE ".add.f32 [%0], 0f3F800000;" ::KIND(ADDRESS) : "memory"); \
  else                                                                                  \
    asm volatile("red." SPACE ".add.f64 [%0], 0d3FF0000000000000;" ::KIND(ADDRESS) : "memory")

template <bool kShared, class T>
__device__ __forceinline__ void reduce_add_one(T* p) {
  if constexpr (kShared) {
    const auto a = static_cast<unsigned>(__cvta_generic_to_shared(p));
    MEMBENCH_RED_ADD_ONE("shared", "r", a);
  } else {
    MEMBENCH_RED_ADD_ONE("global", "l", p);
  }
}
#undef MEMBENCH_RED_ADD_ONE

// `updates` additions of 1 by every thread. kUse: atomicAdd, its old values
// summed into the thread's ticket; otherwise the result is unused and the
// kernel issues a reduction (reduce_add_one). kShared: the
// block's slots in shared memory, zeroed first and written to target[block]
// after the last update.
template <class T, bool kUse, bool kShared>
__global__ void __launch_bounds__(kAtomicsBlock)
    atomics_update(T* __restrict__ target, double* __restrict__ tickets, int updates, int sharing, unsigned slots) {
  __shared__ T shared_slots[kAtomicsBlock];
  T* where;
  if constexpr (kShared) {
    for (unsigned i = threadIdx.x; i < slots; i += blockDim.x) shared_slots[i] = T(0);
    __syncthreads();
    where = shared_slots + atomic_address(sharing, true);
  } else {
    where = target + atomic_address(sharing, false);
  }
  double sum = 0;
  for (int k = 0; k < updates; ++k) {
    if constexpr (kUse) {
      sum += static_cast<double>(atomicAdd(where, T(1)));
    } else {
      reduce_add_one<kShared>(where);
    }
  }
  if constexpr (kUse) tickets[static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
  if constexpr (kShared) {
    __syncthreads();
    for (unsigned i = threadIdx.x; i < slots; i += blockDim.x)
      target[std::size_t{blockIdx.x} * slots + i] = shared_slots[i];
  }
}

}  // namespace kernels

namespace {

unsigned slots_of(AtomicSharing s);

// The typed launch of one instance.
template <class T, bool kUse, bool kShared>
cudaError_t run_atomics(const AtomicsPlan& p, AtomicTarget target, double* tickets, cudaStream_t stream) {
  T* const* typed = std::get_if<T*>(&target);
  if (typed == nullptr) return cudaErrorInvalidValue;
  kernels::atomics_update<T, kUse, kShared><<<p.shape.grid, p.shape.block, 0, stream>>>(
      *typed, tickets, p.config.updates, static_cast<int>(p.config.shared_by), slots_of(p.config.shared_by));
  return cudaGetLastError();
}

using Instance = std::pair<const void*, AtomicsPlan::Run>;

template <class T, bool kUse, bool kShared>
Instance instance() {
  return {reinterpret_cast<const void*>(kernels::atomics_update<T, kUse, kShared>), run_atomics<T, kUse, kShared>};
}

template <class T>
Instance instance_of(bool use, bool shared) {
  if (use) return shared ? instance<T, true, true>() : instance<T, true, false>();
  return shared ? instance<T, false, true>() : instance<T, false, false>();
}

Instance instance_of(const AtomicsConfig& c) {
  const bool use = c.variant == AtomicVariant::add, shared = c.space == AtomicSpace::shared;
  switch (c.type) {
    case AtomicType::u32: return instance_of<unsigned int>(use, shared);
    case AtomicType::u64: return instance_of<unsigned long long>(use, shared);
    case AtomicType::f32: return instance_of<float>(use, shared);
    case AtomicType::f64: return instance_of<double>(use, shared);
  }
  return {nullptr, nullptr};
}

std::uint64_t members_of(AtomicSharing s, std::uint64_t threads) {
  switch (s) {
    case AtomicSharing::grid: return threads;
    case AtomicSharing::block: return kAtomicsBlock;
    case AtomicSharing::warp: return 32;
    case AtomicSharing::thread: return 1;
  }
  return 1;
}

// The shared slots a block uses.
unsigned slots_of(AtomicSharing s) { return static_cast<unsigned>(kAtomicsBlock / members_of(s, kAtomicsBlock)); }

// The value a target holds as a double.
double element(const std::vector<unsigned char>& bytes, AtomicType t, std::size_t i) {
  switch (t) {
    case AtomicType::u32: {
      std::uint32_t v;
      std::memcpy(&v, bytes.data() + 4 * i, 4);
      return v;
    }
    case AtomicType::u64: {
      std::uint64_t v;
      std::memcpy(&v, bytes.data() + 8 * i, 8);
      return static_cast<double>(v);
    }
    case AtomicType::f32: {
      float v;
      std::memcpy(&v, bytes.data() + 4 * i, 4);
      return v;
    }
    case AtomicType::f64: {
      double v;
      std::memcpy(&v, bytes.data() + 8 * i, 8);
      return v;
    }
  }
  return 0;
}

}  // namespace

std::size_t atomic_type_bytes(AtomicType t) { return t == AtomicType::u32 || t == AtomicType::f32 ? 4 : 8; }

AtomicsLayout atomics_layout(const AtomicsConfig& c, unsigned grid) {
  AtomicsLayout l;
  l.threads = std::uint64_t{grid} * kAtomicsBlock;
  l.members = members_of(c.shared_by, l.threads);
  l.addresses = l.members == 0 ? 0 : l.threads / l.members;
  l.updates_per_address = l.members * static_cast<std::uint64_t>(std::max(c.updates, 0));
  l.updates = static_cast<double>(l.threads) * std::max(c.updates, 0);
  return l;
}

bool atomics_config_supported(const AtomicsConfig& c, unsigned grid, std::string* why) {
  auto refuse = [&](const std::string& reason) {
    if (why != nullptr) *why = reason;
    return false;
  };
  if (c.updates < 1 || c.updates > kAtomicsMaxUpdates)
    return refuse("updates must be within 1.." + std::to_string(kAtomicsMaxUpdates));
  if (c.space == AtomicSpace::shared && c.shared_by == AtomicSharing::grid)
    return refuse("shared memory is per block: no address is shared by the whole grid");
  const AtomicsLayout l = atomics_layout(c, grid);
  if (c.type == AtomicType::f32 && l.updates_per_address > (std::uint64_t{1} << 24))
    return refuse("f32 sums are exact only up to 2^24; " + std::to_string(l.updates_per_address) +
                  " updates of one address would round (fewer updates per thread)");
  return true;
}

double atomics_model_updates_per_second(const AtomicsLayout& l, int sm_count, double sm_clock_hz) {
  const double serial = static_cast<double>(l.addresses) * sm_clock_hz;
  const double issue = static_cast<double>(sm_count) * 32 * sm_clock_hz;
  return std::min(serial, issue);
}

double atomics_model_l2_requests(const AtomicsConfig& c, const AtomicsLayout& l) {
  if (c.space != AtomicSpace::global) return 0;
  const double warp_instructions = static_cast<double>(l.threads / 32) * c.updates;
  return l.members > 1 ? l.updates : warp_instructions;
}

std::optional<double> atomics_model_shared_wavefronts(const AtomicsConfig& c, const AtomicsLayout& l) {
  if (c.space != AtomicSpace::shared) return 0.0;
  if (c.type != AtomicType::u32) return std::nullopt;  // 64-bit and float additions are compare-and-swap loops
  const double warp_instructions = static_cast<double>(l.threads / 32) * c.updates;
  return c.variant == AtomicVariant::add && l.members > 1 ? l.updates : warp_instructions;
}

cudaError_t plan(const AtomicsConfig& c, AtomicsPlan* p) {
  const auto [kernel, run] = instance_of(c);
  if (kernel == nullptr) return cudaErrorInvalidValue;
  unsigned grid = 0;
  if (const cudaError_t rc = detail::resident_grid(kernel, kAtomicsBlock, 0, &grid); rc != cudaSuccess) return rc;
  p->config = c;
  p->shape = detail::shape_of(kernel, grid, kAtomicsBlock);  // on a refusal too: the grid its reason is about
  if (!atomics_config_supported(c, grid, nullptr)) return cudaErrorInvalidValue;
  p->layout = atomics_layout(c, grid);
  p->target_elements = c.space == AtomicSpace::shared ? std::size_t{grid} * slots_of(c.shared_by) : p->layout.addresses;
  p->ticket_elements = c.variant == AtomicVariant::add ? p->layout.threads : 0;
  p->placements = c.space == AtomicSpace::global && p->layout.addresses > 1 ? kAtomicsPlacements : 1;
  p->run = run;
  return cudaSuccess;
}

namespace {
constexpr std::size_t kPage = std::size_t{2} << 20;
// Placement k's offset within its page: 68 KiB further for each (a 4 KiB
// step past a 64 KiB one), wrapped within the page.
constexpr std::size_t kWithinPageStep = std::size_t{68} << 10;
}  // namespace

std::size_t atomics_placement_offset(const AtomicsPlan& p, int k) {
  const std::size_t bytes = p.target_elements * atomic_type_bytes(p.config.type);
  const std::size_t slot = (bytes + kPage - 1) / kPage * kPage + kPage;  // a page to spare for the offset
  return static_cast<std::size_t>(k) * slot + static_cast<std::size_t>(k) * kWithinPageStep % kPage;
}

std::size_t atomics_target_bytes(const AtomicsPlan& p) {
  return atomics_placement_offset(p, std::max(p.placements, 1) - 1) +
         p.target_elements * atomic_type_bytes(p.config.type);
}

namespace {
template <class T>
T* placed(const DeviceAllocation& targets, std::size_t offset) {
  return targets.as<T>() + offset / sizeof(T);  // every offset is a whole number of 8-byte words
}
}  // namespace

AtomicTarget atomics_target(const AtomicsPlan& p, const DeviceAllocation& targets, int k) {
  const std::size_t offset = atomics_placement_offset(p, k);
  switch (p.config.type) {
    case AtomicType::u32: return placed<unsigned int>(targets, offset);
    case AtomicType::u64: return placed<unsigned long long>(targets, offset);
    case AtomicType::f32: return placed<float>(targets, offset);
    case AtomicType::f64: break;
  }
  return placed<double>(targets, offset);
}

cudaError_t launch(const AtomicsPlan& p, AtomicTarget target, double* tickets, cudaStream_t stream) {
  if (p.run == nullptr || target.index() != static_cast<std::size_t>(p.config.type)) return cudaErrorInvalidValue;
  return p.run(p, target, tickets, stream);
}

std::optional<std::string> atomics_check(const AtomicsPlan& p, const std::vector<unsigned char>& target,
                                         const std::vector<double>& tickets) {
  const AtomicsConfig& c = p.config;
  const double expected = static_cast<double>(p.layout.updates_per_address);
  if (target.size() != p.target_elements * atomic_type_bytes(c.type)) return "target: wrong size";
  for (std::size_t i = 0; i < p.target_elements; ++i)
    if (const double got = element(target, c.type, i); got != expected) {
      std::ostringstream os;
      os << "target[" << i << "] = " << got << ", expected " << expected << " (" << p.layout.members << " threads x "
         << c.updates << " updates)";
      return os.str();
    }
  if (c.variant != AtomicVariant::add) return std::nullopt;
  if (tickets.size() != p.ticket_elements) return "tickets: wrong size";
  // Each address's group: threads [g x members, (g + 1) x members), since
  // every sharing groups consecutive threads.
  const double n = expected, want = n * (n - 1) / 2;
  for (std::uint64_t g = 0; g < p.layout.addresses; ++g) {
    double sum = 0;
    for (std::uint64_t t = g * p.layout.members; t < (g + 1) * p.layout.members; ++t) sum += tickets[t];
    if (sum != want) {
      std::ostringstream os;
      os.precision(17);
      os << "the old values returned to address " << g << "'s " << p.layout.members << " threads sum to " << sum
         << ", expected " << want << " (each of 0.." << n - 1 << " once)";
      return os.str();
    }
  }
  return std::nullopt;
}

std::optional<std::string> atomics_check_placements(const AtomicsPlan& p, const std::vector<unsigned char>& targets,
                                                    const std::vector<double>& tickets) {
  const std::size_t bytes = p.target_elements * atomic_type_bytes(p.config.type);
  if (targets.size() != atomics_target_bytes(p)) return "targets: wrong size";
  const auto first = targets.begin() + static_cast<std::ptrdiff_t>(atomics_placement_offset(p, 0));
  if (auto wrong =
          atomics_check(p, std::vector<unsigned char>(first, first + static_cast<std::ptrdiff_t>(bytes)), tickets))
    return wrong;
  for (int k = 1; k < p.placements; ++k) {
    const auto at = targets.begin() + static_cast<std::ptrdiff_t>(atomics_placement_offset(p, k));
    if (std::any_of(at, at + static_cast<std::ptrdiff_t>(bytes), [](unsigned char b) { return b != 0; }))
      return "placement " + std::to_string(k) + " was written by a launch at placement 0";
  }
  return std::nullopt;
}

}  // namespace membench
