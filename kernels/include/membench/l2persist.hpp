// L2 residency control: a kernel re-reads a hot buffer while it streams a
// cold one four times its size, under an access policy window on the hot
// buffer (cudaLaunchAttributeAccessPolicyWindow: a hit ratio of its lines
// persist) with part of the L2 set aside for persisting lines
// (cudaLimitPersistingL2CacheSize). The set-aside is the context's: a
// PersistingL2 scope sets it for a case and leaves the L2 as it found it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "membench/platform/kernel_shape.hpp"

namespace membench {

inline constexpr int kL2PersistBlock = 256;
inline constexpr std::size_t kL2PersistChunkBytes = 4096;  // a block-step reads one hot chunk of 256 x 16 bytes
inline constexpr int kL2PersistColdPerHot = 4;             // cold chunks read beside each hot chunk
inline constexpr int kL2PersistRounds = 4;                 // reads of the whole hot buffer per launch

struct L2PersistConfig {
  std::size_t hot_bytes = 0;  // a multiple of kL2PersistChunkBytes
  int hit_ratio_pct = 100;    // of the window's accesses that persist
  int set_aside_pct = 100;    // of the device's largest persisting set-aside
};

// What the device allows: the largest set-aside and window (0: no residency control).
struct L2PersistLimits {
  std::size_t max_set_aside = 0;
  std::size_t max_window = 0;
  std::size_t l2_bytes = 0;
};
L2PersistLimits l2persist_limits(int device);

bool l2persist_config_supported(const L2PersistConfig& c, const L2PersistLimits& limits, std::string* why);
std::size_t l2persist_set_aside_bytes(const L2PersistConfig& c, const L2PersistLimits& limits);

// The input: the hot buffer, then the cold one (kL2PersistColdPerHot x
// kL2PersistRounds times as large), as one array of floats.
std::size_t l2persist_input_floats(const L2PersistConfig& c);
double l2persist_bytes(const L2PersistConfig& c);  // read per launch

// The model. Persisting lines: the window's hit ratio of the hot buffer, up
// to the set-aside; they stay in the L2 from launch to launch, every other
// hot line is evicted by the cold stream before it is read again (the cold
// bytes between two reads of a hot line, four times the hot buffer, exceed
// what the L2 keeps). So the hot bytes served from the L2 per launch are
// kL2PersistRounds x the persisting bytes, and DRAM serves the rest.
double l2persist_model_persisting_bytes(const L2PersistConfig& c, const L2PersistLimits& limits);
double l2persist_model_l2_hot_bytes(const L2PersistConfig& c, const L2PersistLimits& limits);
double l2persist_model_dram_read_bytes(const L2PersistConfig& c, const L2PersistLimits& limits);

// The current device's persisting set-aside for as long as the scope lives;
// on leaving it, the persisting lines are reset to normal
// (cudaCtxResetPersistingL2Cache) and the set-aside is put back as it was.
class PersistingL2 {
 public:
  explicit PersistingL2(std::size_t set_aside_bytes);
  ~PersistingL2();
  PersistingL2(const PersistingL2&) = delete;
  PersistingL2& operator=(const PersistingL2&) = delete;
  std::size_t before() const { return before_; }

 private:
  int device_ = 0;
  std::size_t before_ = 0;
};

// The launch worked out once: a resident grid, and the window on the hot
// buffer that every launch carries (no stream state is touched).
struct L2PersistPlan {
  L2PersistConfig config;
  KernelShape shape;
  std::uint64_t hot_chunks = 0;
  std::uint64_t steps = 0;  // block-steps per launch: hot_chunks x kL2PersistRounds
};
cudaError_t plan(const L2PersistConfig& c, L2PersistPlan* plan);
// partial[b] = the exact sum of everything block b read.
cudaError_t launch(const L2PersistPlan& p, const float* in, double* partial, cudaStream_t stream);

// Host reference: the sum of every chunk of the input, then block b's sum.
std::vector<double> l2persist_chunk_sums(const L2PersistConfig& c, std::uint32_t seed);
double l2persist_expected(const L2PersistPlan& p, const std::vector<double>& chunk_sums, unsigned block);

}  // namespace membench
