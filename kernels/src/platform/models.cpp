#include "membench/platform/models.hpp"

#include <map>
#include <numeric>
#include <set>

namespace membench {

int sectors_per_request(int access_bytes, std::size_t byte_stride) {
  std::set<std::size_t> sectors;
  for (std::size_t lane = 0; lane < kWarpSize; ++lane) {
    const std::size_t first = lane * byte_stride;
    const std::size_t last = first + static_cast<std::size_t>(access_bytes) - 1;
    for (std::size_t s = first / kSectorBytes; s <= last / kSectorBytes; ++s) sectors.insert(s);
  }
  return static_cast<int>(sectors.size());
}

double request_efficiency(int access_bytes, std::size_t byte_stride) {
  const double useful = static_cast<double>(kWarpSize) * access_bytes;
  return useful / (static_cast<double>(sectors_per_request(access_bytes, byte_stride)) * kSectorBytes);
}

namespace {

// The pattern repeats every lcm(stride, granularity) bytes, which holds at
// most `granularity` accesses; the first `accesses` of a period are counted
// unit by unit. Returns the bytes each touched unit holds, keyed by unit.
std::map<std::size_t, std::size_t> coverage(const AccessPattern& p, std::size_t granularity, std::size_t accesses) {
  std::map<std::size_t, std::size_t> covered;
  for (std::size_t i = 0; i < accesses; ++i) {
    const std::size_t first = i * p.stride_bytes;
    const std::size_t end = first + p.access_bytes;
    for (std::size_t b = first; b < end;) {
      const std::size_t unit = b / granularity;
      const std::size_t unit_end = std::min(end, (unit + 1) * granularity);
      covered[unit] += unit_end - b;
      b = unit_end;
    }
  }
  return covered;
}

std::size_t accesses_per_period(const AccessPattern& p, std::size_t granularity) {
  if (p.stride_bytes == 0) return 1;
  return std::lcm(p.stride_bytes, granularity) / p.stride_bytes;
}

// Units of one full period and of the ragged rest that satisfy `counts`.
template <class Counts>
double count_units(const AccessPattern& p, std::size_t granularity, Counts counts) {
  if (p.count == 0) return 0;
  const std::size_t per = accesses_per_period(p, granularity);
  const std::size_t periods = p.stride_bytes == 0 ? 1 : p.count / per;
  const std::size_t rest = p.stride_bytes == 0 ? 0 : p.count % per;
  auto units = [&](std::size_t accesses) {
    std::size_t n = 0;
    for (const auto& [unit, bytes] : coverage(p, granularity, accesses)) n += counts(bytes) ? 1 : 0;
    return static_cast<double>(n);
  };
  return static_cast<double>(periods) * units(per) + units(rest);
}

}  // namespace

double touched_bytes(const AccessPattern& p, std::size_t granularity) {
  return count_units(p, granularity, [](std::size_t bytes) { return bytes > 0; }) * static_cast<double>(granularity);
}

double partial_sectors(const AccessPattern& p) {
  return count_units(p, kSectorBytes, [](std::size_t bytes) { return bytes > 0 && bytes < kSectorBytes; });
}

DramTraffic& operator+=(DramTraffic& a, const DramTraffic& b) {
  a.read_bytes += b.read_bytes;
  a.write_bytes += b.write_bytes;
  return a;
}

DramTraffic dram_read(const AccessPattern& p) { return {touched_bytes(p, kDramReadBytes), 0.0}; }

DramTraffic dram_write(const AccessPattern& p) {
  return {partial_sectors(p) * kSectorBytes, touched_bytes(p, kSectorBytes)};
}

}  // namespace membench
