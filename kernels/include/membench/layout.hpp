// Layout experiment: an array of 4-float structs (AoS) against four float
// arrays (SoA), touching all fields or only the first few.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "membench/platform/int_list.hpp"
#include "membench/platform/kernel_shape.hpp"
#include "membench/platform/models.hpp"

namespace membench {

enum class LayoutVariant { aos, soa };
inline constexpr auto kLayoutVariants = enum_names<LayoutVariant>("aos", "soa");

// The particle: four floats, 4-byte aligned, so a field load is one
// 4-byte access per thread at a 16-byte stride across the warp.
struct Particle {
  float x, y, z, w;
};
static_assert(sizeof(Particle) == 16 && alignof(Particle) == 4, "a 16-byte struct of four floats");

inline constexpr int kLayoutFields = 4;
inline constexpr int kLayoutBlock = 256;
using LayoutFieldCounts = IntList<1, 2, 3, 4>;

struct LayoutConfig {
  LayoutVariant variant = LayoutVariant::aos;
  std::size_t n = 0;  // elements (structs)
  int fields = 4;     // the first `fields` fields are read and written
};

// Both layouts live in one buffer of 4n floats:
//   AoS: field f of element i at 4i + f;   SoA: field f of element i at f*n + i.
// The kernels write field = 2 * field for the first `fields` fields (1..4) and
// leave the others untouched. The launch is worked out once
// (cudaErrorInvalidValue, before any CUDA call, for a field count outside the
// struct).
using LayoutPlan = Plan<LayoutConfig, const float*, float*>;
cudaError_t plan(const LayoutConfig& c, LayoutPlan* plan);

// Which field raw buffer index j holds (0 = x ... 3 = w).
inline int layout_field_of(const LayoutConfig& c, std::size_t j) {
  return static_cast<int>(c.variant == LayoutVariant::aos ? j % kLayoutFields : j / c.n);
}

// Useful bytes per launch: n elements x fields x (read + write) x 4 bytes.
double layout_bytes(const LayoutConfig& c);

// Model: sectors per warp load of one field (16 for AoS, 4 for SoA) and the
// share of DRAM sector bytes that are useful: AoS drags all four fields
// through every sector (fields / 4), SoA fetches only what it uses (1).
int layout_sectors_per_request(const LayoutConfig& c);
double layout_dram_efficiency(const LayoutConfig& c);
// DRAM bytes per launch for arrays far larger than the L2: AoS with fewer
// than four fields reads every sector and, writing each in part, also fills
// it from DRAM before writing it back.
DramTraffic layout_dram_traffic(const LayoutConfig& c);

}  // namespace membench
