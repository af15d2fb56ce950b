// Layout experiment: an array of 4-float structs (AoS) against four float
// arrays (SoA), touching all fields or only the first few.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

namespace membench {

enum class LayoutVariant { aos, soa };
const std::vector<LayoutVariant>& layout_variants();
std::string to_string(LayoutVariant v);

// The study's particle: four floats, 4-byte aligned, so a field load is one
// 4-byte access per thread at a 16-byte stride across the warp.
struct Particle {
  float x, y, z, w;
};
static_assert(sizeof(Particle) == 16 && alignof(Particle) == 4, "the study's AoS struct");

inline constexpr int kLayoutFields = 4;
inline constexpr int kLayoutBlock = 256;

// Both layouts live in one buffer of 4n floats:
//   AoS: field f of element i at 4i + f;   SoA: field f of element i at f*n + i.
// The kernels write field = 2 * field for the first `fields` fields (1..4) and
// leave the others untouched.
cudaError_t launch_layout_aos(const float* in, float* out, std::size_t n, int fields, cudaStream_t stream);
cudaError_t launch_layout_soa(const float* in, float* out, std::size_t n, int fields, cudaStream_t stream);
cudaError_t launch_layout(LayoutVariant v, const float* in, float* out, std::size_t n, int fields,
                          cudaStream_t stream);

// Which field raw buffer index j holds (0 = x ... 3 = w).
inline int layout_field_of(LayoutVariant v, std::size_t j, std::size_t n) {
  return static_cast<int>(v == LayoutVariant::aos ? j % kLayoutFields : j / n);
}

// Useful bytes per launch: n elements x fields x (read + write) x 4 bytes.
double layout_bytes(std::size_t n, int fields);

// Model: sectors per warp load of one field (16 for AoS, 4 for SoA) and the
// share of DRAM sector bytes that are useful: AoS drags all four fields
// through every sector (fields / 4), SoA fetches only what it uses (1).
int layout_sectors_per_request(LayoutVariant v);
double layout_dram_efficiency(LayoutVariant v, int fields);

}  // namespace membench
