// Unified memory as the GPU sees it: a kernel reads a managed buffer
// (cudaMallocManaged), or system memory from malloc where the GPU may use it,
// while its pages lie on the host, on the GPU, or go back and forth.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "membench/platform/int_list.hpp"
#include "membench/platform/kernel_shape.hpp"

namespace membench {

inline constexpr int kManagedBlock = 256;
inline constexpr std::size_t kManagedPageBytes = 4096;    // a block reads one page per step (256 x 16 bytes)
inline constexpr std::uint64_t kManagedStridePages = 16;  // strided: one page in every 16 (64 KiB)
inline constexpr std::uint32_t kManagedKey = 0x3A9E;
// The driver migrates a GPU fault's memory in blocks of this size at least
// (the model; the unified-memory counters confirm it on the H200).
inline constexpr std::size_t kManagedMigrationBytes = std::size_t{64} << 10;

// Where the pages are when a timed launch starts, and what the launch does:
//   resident     on the GPU (prefetched there once): the kernel alone
//   fault        on the host: the kernel's reads fault them over
//   prefetch     on the host: cudaMemPrefetchAsync to the GPU, then the kernel
//   read_mostly  cudaMemAdviseSetReadMostly, the host has just written them:
//                the kernel's faults make read-only copies on the GPU
//   remote       cudaMemAdviseSetPreferredLocation host + SetAccessedBy GPU:
//                the kernel reads them over the link, nothing migrates
//   ping_pong    the launch itself has the host write one word of every
//                page, then the kernel read them all: each page crosses twice
//   pageable     malloc'd system memory the host has just written (needs
//                cudaDevAttrPageableMemoryAccess): the kernel reads it
enum class ManagedVariant { resident, fault, prefetch, read_mostly, remote, ping_pong, pageable };
inline constexpr auto kManagedVariants =
    enum_names<ManagedVariant>("resident", "fault", "prefetch", "read_mostly", "remote", "ping_pong", "pageable");

// The pages the kernel reads, in its order: all in order, one in every
// kManagedStridePages in order, or all in a random order (CycleOrder).
enum class ManagedTouch { sequential, strided, random };
inline constexpr auto kManagedTouches = enum_names<ManagedTouch>("sequential", "strided", "random");

struct ManagedConfig {
  ManagedVariant variant = ManagedVariant::fault;
  ManagedTouch touch = ManagedTouch::sequential;
  std::size_t bytes = 0;  // a multiple of kManagedPageBytes
};

bool managed_config_supported(const ManagedConfig& c, std::string* why);
// Whether this GPU can run the variant; otherwise why not (no concurrent
// managed access, no pageable memory access).
bool managed_variant_available(ManagedVariant v, int device, std::string* why);

std::uint64_t managed_pages(const ManagedConfig& c);
// The pages the kernel reads, and the k-th of them.
std::uint64_t managed_visited_pages(const ManagedConfig& c);
std::uint64_t managed_page_of(const ManagedConfig& c, std::uint64_t k);
// Bytes the kernel reads per launch.
double managed_read_bytes(const ManagedConfig& c);
// The model's bytes migrated per launch: every 64 KiB block the kernel reads
// from moves whole, once (twice for ping_pong); none for resident and
// remote (remote reads cross the link, but nothing migrates: see
// managed_link_bytes). A strided touch of one page in 16 moves every block.
double managed_migrated_bytes(const ManagedConfig& c);
// Bytes over the host link per launch, migrated or read in place.
double managed_link_bytes(const ManagedConfig& c);

// The memory of a case: managed (cudaMallocManaged) or system (malloc)
// holding the float pattern, and the advice and placement of its variant.
class ManagedBuffer {
 public:
  ManagedBuffer(const ManagedConfig& c, int device, std::uint32_t seed);
  ~ManagedBuffer();
  ManagedBuffer(const ManagedBuffer&) = delete;
  ManagedBuffer& operator=(const ManagedBuffer&) = delete;
  const float* data() const { return data_; }
  // Enqueued before each launch, outside its timing: the pages back where
  // the variant's launch expects them (nothing for resident, remote, ping_pong).
  cudaError_t before_each(cudaStream_t stream) const;
  bool has_before_each() const;
  // What a launch does before its kernel: ping_pong's host writes,
  // prefetch's cudaMemPrefetchAsync to the GPU.
  cudaError_t before_kernel(cudaStream_t stream) const;
  // The host writes one word of every page (the value it holds): each page
  // is the host's again, and copies elsewhere are invalid. Enqueued in stream
  // order by cudaLaunchHostFunc.
  void host_touch() const;

 private:
  ManagedConfig config_;
  int device_;
  float* data_ = nullptr;
};

// The kernel on a resident grid.
struct ManagedPlan {
  ManagedConfig config;
  KernelShape shape;
};
cudaError_t plan(const ManagedConfig& c, ManagedPlan* plan);
// partial[b] = the exact sum of the pages block b read. The launch alone; the
// case adds the buffer's before_kernel.
cudaError_t launch(const ManagedPlan& p, const float* data, double* partial, cudaStream_t stream);

// Host reference: block b's sum, from every page's sum.
std::vector<double> managed_page_sums(const ManagedConfig& c, std::uint32_t seed);
double managed_expected(const ManagedConfig& c, const std::vector<double>& page_sums, unsigned grid, unsigned block);

}  // namespace membench
