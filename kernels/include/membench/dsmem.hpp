// Distributed shared memory (sm_90+): the blocks of a thread-block cluster
// read each other's shared memory over the SM-to-SM network. Each block
// holds kDsmemBytes; it reads either its own (local) or the next block's in
// the cluster (remote), for bandwidth (all threads, 16-byte loads) and for
// latency (one thread chasing a random cyclic chain of offsets).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "membench/platform/int_list.hpp"
#include "membench/platform/kernel_shape.hpp"

namespace membench {

enum class DsmemVariant { read_local, read_remote, chase_local, chase_remote };
inline constexpr auto kDsmemVariants =
    enum_names<DsmemVariant>("read_local", "read_remote", "chase_local", "chase_remote");

// One 1024-thread block per SM: each holds more than half an SM's shared
// memory, so no two blocks of a cluster share an SM and "remote" always
// crosses the SM-to-SM network.
inline constexpr int kDsmemBlock = 1024;
inline constexpr std::size_t kDsmemBytes = 128 * 1024;      // shared memory each block holds
inline constexpr int kDsmemReps = 128;                      // times a read block reads its target's buffer (default)
inline constexpr std::uint64_t kDsmemChaseSteps = 1 << 16;  // dependent loads per launch
inline constexpr std::uint32_t kDsmemChaseKey = 0xD5;
inline constexpr int kDsmemMaxCluster = 8;  // the portable limit

struct DsmemConfig {
  DsmemVariant variant = DsmemVariant::read_remote;
  int cluster = 2;        // blocks per cluster, 1..kDsmemMaxCluster
  int reps = kDsmemReps;  // read: times each block reads its target's buffer (>= 1)
};

bool dsmem_remote(DsmemVariant v);
bool dsmem_chases(DsmemVariant v);
bool dsmem_config_supported(const DsmemConfig& c, std::string* why);
// Compute capability 9.0 and sm_90 code (see sm90_kernel_runs).
bool dsmem_available(std::string* why);

// The block a block reads: itself (local) or the next rank of its cluster.
unsigned dsmem_target(const DsmemConfig& c, unsigned block);

// Inputs. read: each block's kDsmemBytes / 4 floats, one block after another
// (the float pattern). chase: one chain of kDsmemBytes / 4 nodes, 4 bytes
// apart, holding byte offsets (launch_fill_offset_chain), which every block
// copies into its shared memory. Either is read with volatile PTX loads
// (ld.shared, or ld.shared::cluster at a mapa address), so the compiler
// cannot hoist the repeated reads out of their loop.
std::size_t dsmem_input_elements(const DsmemConfig& c, unsigned grid);
std::uint64_t dsmem_chain_nodes();
cudaError_t dsmem_fill_chain(std::uint32_t* chain, cudaStream_t stream);

// Output: one double per block. read: the exact sum of what it read. chase:
// (thread 0 of each block) the node where kDsmemChaseSteps steps from the
// head ended.
// The launch worked out once: read on as many clusters as fit on the GPU at
// once, chase on one; launched as clusters through cudaLaunchKernelEx.
// cudaErrorInvalidValue, before any CUDA call, for a cluster size or
// repetition count not allowed; cudaErrorNotSupported where clusters cannot run.
struct DsmemPlan {
  using Read = cudaError_t (*)(const DsmemPlan&, const float*, double*, cudaStream_t);
  using Chase = cudaError_t (*)(const DsmemPlan&, const std::uint32_t*, double*, cudaStream_t);
  DsmemConfig config;
  KernelShape shape;
  std::uint32_t head = 0;  // chase: the byte offset of the chain's first node
  Read read = nullptr;     // the read variants
  Chase chase = nullptr;   // the chase variants
};
cudaError_t plan(const DsmemConfig& c, DsmemPlan* plan);
// A read variant reads floats, a chase variant its chain; the other is
// cudaErrorInvalidValue, before any CUDA call.
cudaError_t launch(const DsmemPlan& p, const float* in, double* out, cudaStream_t stream);
cudaError_t launch(const DsmemPlan& p, const std::uint32_t* chain, double* out, cudaStream_t stream);

// Host references, from the input as described above.
double dsmem_expected(const DsmemConfig& c, unsigned block, std::uint32_t seed);

// Bytes read per launch (read) and dependent loads per launch (chase).
double dsmem_bytes(const DsmemConfig& c, unsigned grid);

}  // namespace membench
