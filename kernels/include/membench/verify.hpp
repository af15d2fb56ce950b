// Host-side checking of a device result against a host reference, bit for
// bit: an expected poison value means "this element must stay unwritten".
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace membench {

struct Mismatch {
  std::size_t index = 0;   // the first element that differs
  float got = 0;
  float expected = 0;
  std::size_t count = 1;   // elements that differ in all
  std::size_t total = 0;   // elements checked
};

// Copies `count` floats from device memory (synchronously).
std::vector<float> copy_to_host(const float* device, std::size_t count);

// First index where `got[i]` and `expected(i)` differ in their bits.
template <class Expected>
std::optional<Mismatch> first_mismatch(const std::vector<float>& got, Expected&& expected) {
  for (std::size_t i = 0; i < got.size(); ++i) {
    const float want = expected(i);
    if (std::memcmp(&got[i], &want, sizeof(float)) != 0) return Mismatch{i, got[i], want, 1, got.size()};
  }
  return std::nullopt;
}

// The whole check split across the host's cores (`expected` must be a pure
// function of i): the lowest bad index and how many elements differ.
std::optional<Mismatch> all_mismatches(const std::vector<float>& got, const std::function<float(std::size_t)>& expected);

// "verification failed: out[12] = poison (never written), expected 4.5 (2 of 1024 elements differ)".
std::string describe(const Mismatch& m, const std::string& array_name);

}  // namespace membench
