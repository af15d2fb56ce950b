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

// ---- DRAM traffic ---------------------------------------------------------
// What reaches DRAM when a kernel streams arrays much larger than the L2, per
// launch, in the steady state of back-to-back launches:
//  - a read miss fetches kDramReadBytes (two sectors), so a lone 4-byte read
//    costs 64 bytes;
//  - a written sector is written back whole (32 bytes);
//  - a sector the kernel writes only in part is first read from DRAM (the L2
//    must merge the bytes the kernel did not write), one sector at a time.
inline constexpr int kDramReadBytes = 64;

// One array's access pattern: `count` accesses of `access_bytes` each,
// `stride_bytes` apart from a base aligned to 64 bytes (access_bytes <= stride_bytes).
struct AccessPattern {
  std::size_t count = 0;
  std::size_t access_bytes = 4;
  std::size_t stride_bytes = 4;
};

// Bytes in the `granularity`-byte units the accesses touch (exact: counts one
// period of the pattern and multiplies).
double touched_bytes(const AccessPattern& p, std::size_t granularity);
// Sectors the pattern writes only in part.
double partial_sectors(const AccessPattern& p);

struct DramTraffic {
  double read_bytes = 0;
  double write_bytes = 0;
};
DramTraffic& operator+=(DramTraffic& a, const DramTraffic& b);

// An array read with this pattern, and an array written with it.
DramTraffic dram_read(const AccessPattern& p);
DramTraffic dram_write(const AccessPattern& p);

}  // namespace membench
