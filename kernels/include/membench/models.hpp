// Analytic models of global-memory access, shared by the global and layout
// experiments. Pure host functions: the tests spell out their arithmetic and
// the benchmarks report them next to each measurement.
#pragma once

#include <cstddef>

namespace membench {

inline constexpr int kWarpSize = 32;
inline constexpr int kSectorBytes = 32;

// 32-byte sectors touched by one warp-wide load in which lane t reads
// `access_bytes` bytes at byte offset t * byte_stride (base sector-aligned).
// Coalesced float: 4; float at stride 2: 8; stride >= 8 floats: 32;
// float4: 16; one 4-byte field of a 16-byte struct: 16.
int sectors_per_request(int access_bytes, std::size_t byte_stride);

// Useful share of the sector bytes one such request fetches:
// 32 x access_bytes / (sectors x 32). 1 when coalesced, 1/2 at stride 2.
double request_efficiency(int access_bytes, std::size_t byte_stride);

}  // namespace membench
