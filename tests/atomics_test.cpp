// Atomics family: how a grid spreads over addresses, the refusals, the
// serial model, the exact check of targets and returned old values (and
// that it fails on a wrong one); on the GPU every variant, word, space and
// sharing against that check.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <set>

#include "gpu.hpp"
#include "membench/atomics.hpp"

namespace membench {
namespace {

constexpr unsigned kGrid = 1056;  // 132 SMs x 8 blocks
constexpr std::uint64_t kThreads = std::uint64_t{kGrid} * kAtomicsBlock;

TEST(AtomicsLayout, ThreadsPerAddressBySharing) {
  const auto layout = [](AtomicSharing s) {
    return atomics_layout({AtomicVariant::add, AtomicType::u32, AtomicSpace::global, s, 16}, kGrid);
  };
  EXPECT_EQ(layout(AtomicSharing::grid).members, kThreads);
  EXPECT_EQ(layout(AtomicSharing::grid).addresses, 1u);
  EXPECT_EQ(layout(AtomicSharing::block).members, 256u);
  EXPECT_EQ(layout(AtomicSharing::block).addresses, kGrid);
  EXPECT_EQ(layout(AtomicSharing::warp).members, 32u);
  EXPECT_EQ(layout(AtomicSharing::warp).addresses, kThreads / 32);
  EXPECT_EQ(layout(AtomicSharing::thread).members, 1u);
  EXPECT_EQ(layout(AtomicSharing::thread).addresses, kThreads);
  EXPECT_EQ(layout(AtomicSharing::grid).updates_per_address, kThreads * 16);
  EXPECT_EQ(layout(AtomicSharing::warp).updates_per_address, 32u * 16);
  EXPECT_DOUBLE_EQ(layout(AtomicSharing::block).updates, static_cast<double>(kThreads) * 16);
  EXPECT_EQ(atomic_type_bytes(AtomicType::u32), 4u);
  EXPECT_EQ(atomic_type_bytes(AtomicType::f32), 4u);
  EXPECT_EQ(atomic_type_bytes(AtomicType::u64), 8u);
  EXPECT_EQ(atomic_type_bytes(AtomicType::f64), 8u);
}

TEST(AtomicsConfig, RefusesWhatCannotBeExact) {
  std::string why;
  AtomicsConfig c{AtomicVariant::red, AtomicType::u32, AtomicSpace::shared, AtomicSharing::grid, 16};
  EXPECT_FALSE(atomics_config_supported(c, kGrid, &why));
  EXPECT_NE(why.find("per block"), std::string::npos) << why;
  c.space = AtomicSpace::global;
  EXPECT_TRUE(atomics_config_supported(c, kGrid, &why));
  // f32: one address takes at most 2^24 additions of 1 exactly.
  c.type = AtomicType::f32;
  c.updates = 62;  // 270,336 x 62 = 16,760,832 < 2^24
  EXPECT_TRUE(atomics_config_supported(c, kGrid, &why));
  c.updates = 63;  // 17,031,168 > 2^24
  EXPECT_FALSE(atomics_config_supported(c, kGrid, &why));
  EXPECT_NE(why.find("2^24"), std::string::npos) << why;
  c.type = AtomicType::f64;
  EXPECT_TRUE(atomics_config_supported(c, kGrid, &why));
  c.shared_by = AtomicSharing::warp;
  c.type = AtomicType::f32;
  EXPECT_TRUE(atomics_config_supported(c, kGrid, &why));
  for (int updates : {0, kAtomicsMaxUpdates + 1}) {
    c.updates = updates;
    EXPECT_FALSE(atomics_config_supported(c, kGrid, &why)) << updates;
  }
  c.updates = kAtomicsMaxUpdates;
  EXPECT_TRUE(atomics_config_supported(c, kGrid, &why));
}

TEST(AtomicsModel, OneUpdatePerAddressPerClockUpToOneWarpPerSm) {
  const double clock = 1.98e9;
  AtomicsLayout l;
  l.addresses = 1;
  EXPECT_DOUBLE_EQ(atomics_model_updates_per_second(l, 132, clock), clock);
  l.addresses = 1056;
  EXPECT_DOUBLE_EQ(atomics_model_updates_per_second(l, 132, clock), 1056 * clock);
  l.addresses = 132 * 32;
  EXPECT_DOUBLE_EQ(atomics_model_updates_per_second(l, 132, clock), 132 * 32 * clock);
  l.addresses = kThreads;
  EXPECT_DOUBLE_EQ(atomics_model_updates_per_second(l, 132, clock), 132 * 32 * clock);
}

TEST(AtomicsModel, RequestsAndWavefrontsTheHardwareIsAsked) {
  auto config = [](AtomicVariant v, AtomicType t, AtomicSpace s, AtomicSharing by) {
    return AtomicsConfig{v, t, s, by, 16};
  };
  const double updates = static_cast<double>(kThreads) * 16, warp_instructions = updates / 32;
  for (AtomicSharing by : {AtomicSharing::grid, AtomicSharing::block, AtomicSharing::warp}) {
    const AtomicsConfig c = config(AtomicVariant::red, AtomicType::u32, AtomicSpace::global, by);
    EXPECT_DOUBLE_EQ(atomics_model_l2_requests(c, atomics_layout(c, kGrid)), updates) << kAtomicSharings(by);
  }
  // Any sharing at all, even two lanes to an address, makes every lane a request of its own.
  AtomicsLayout pairs;
  pairs.threads = 64;
  pairs.members = 2;
  pairs.updates = 64.0 * 16;
  const AtomicsConfig paired = config(AtomicVariant::red, AtomicType::u32, AtomicSpace::global, AtomicSharing::warp);
  EXPECT_DOUBLE_EQ(atomics_model_l2_requests(paired, pairs), 64.0 * 16);
  const AtomicsConfig mine = config(AtomicVariant::add, AtomicType::f64, AtomicSpace::global, AtomicSharing::thread);
  EXPECT_DOUBLE_EQ(atomics_model_l2_requests(mine, atomics_layout(mine, kGrid)), warp_instructions);
  // Shared memory: nothing reaches the L2; integers have a wavefront model, floats (CAS loops) none.
  AtomicsConfig s = config(AtomicVariant::add, AtomicType::u32, AtomicSpace::shared, AtomicSharing::warp);
  EXPECT_DOUBLE_EQ(atomics_model_l2_requests(s, atomics_layout(s, kGrid)), 0);
  EXPECT_DOUBLE_EQ(*atomics_model_shared_wavefronts(s, atomics_layout(s, kGrid)), updates);
  s.variant = AtomicVariant::red;
  EXPECT_DOUBLE_EQ(*atomics_model_shared_wavefronts(s, atomics_layout(s, kGrid)), warp_instructions);
  s = config(AtomicVariant::add, AtomicType::u32, AtomicSpace::shared, AtomicSharing::thread);
  EXPECT_DOUBLE_EQ(*atomics_model_shared_wavefronts(s, atomics_layout(s, kGrid)), warp_instructions);
  for (AtomicType t : {AtomicType::u64, AtomicType::f32, AtomicType::f64}) {  // compare-and-swap loops
    s.type = t;
    EXPECT_FALSE(atomics_model_shared_wavefronts(s, atomics_layout(s, kGrid))) << kAtomicTypes(t);
  }
}

// A plan for the host check alone, as plan() would make it for kGrid blocks.
AtomicsPlan host_plan(AtomicsConfig c, unsigned grid) {
  AtomicsPlan p;
  p.config = c;
  p.layout = atomics_layout(c, grid);
  p.target_elements = p.layout.addresses;
  p.ticket_elements = c.variant == AtomicVariant::add ? p.layout.threads : 0;
  return p;
}

template <class T>
std::vector<unsigned char> bytes_of(const std::vector<T>& v) {
  std::vector<unsigned char> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

TEST(AtomicsCheck, TargetsAndTicketsExactlyOrWhatIsWrong) {
  const AtomicsPlan p =
      host_plan({AtomicVariant::add, AtomicType::u32, AtomicSpace::global, AtomicSharing::warp, 3}, 2);
  ASSERT_EQ(p.target_elements, 16u);          // 512 threads in warps of 32
  std::vector<std::uint32_t> target(16, 96);  // 32 threads x 3 updates
  // Each warp's 96 updates returned 0..95 once; thread t of a warp got three of them.
  std::vector<double> tickets(512);
  for (std::size_t w = 0; w < 16; ++w)
    for (std::size_t lane = 0; lane < 32; ++lane)
      tickets[w * 32 + lane] = static_cast<double>(3 * lane + 96);  // lane + (lane + 32) + (lane + 64)
  EXPECT_FALSE(atomics_check(p, bytes_of(target), tickets));

  auto bad_target = target;
  bad_target[7] = 95;
  const auto wrong = atomics_check(p, bytes_of(bad_target), tickets);
  ASSERT_TRUE(wrong);
  EXPECT_NE(wrong->find("target[7] = 95, expected 96"), std::string::npos) << *wrong;

  auto bad_tickets = tickets;
  bad_tickets[33] += 1;  // warp 1 got one old value twice
  const auto twice = atomics_check(p, bytes_of(target), bad_tickets);
  ASSERT_TRUE(twice);
  EXPECT_NE(twice->find("address 1"), std::string::npos) << *twice;

  // red returns nothing: only the targets are checked.
  AtomicsPlan red = p;
  red.config.variant = AtomicVariant::red;
  red.ticket_elements = 0;
  EXPECT_FALSE(atomics_check(red, bytes_of(target), {}));
  EXPECT_TRUE(atomics_check(red, bytes_of(bad_target), {}));
  EXPECT_TRUE(
      atomics_check(p, bytes_of(std::vector<std::uint32_t>(15, 96)), tickets));  // a size that is not the plan's
}

TEST(AtomicsCheck, FloatAndWideWords) {
  const AtomicsPlan p =
      host_plan({AtomicVariant::red, AtomicType::f64, AtomicSpace::global, AtomicSharing::grid, 5}, 1);
  EXPECT_FALSE(atomics_check(p, bytes_of(std::vector<double>{256.0 * 5}), {}));
  EXPECT_TRUE(atomics_check(p, bytes_of(std::vector<double>{256.0 * 5 - 1}), {}));
  AtomicsPlan f = p;
  f.config.type = AtomicType::f32;
  EXPECT_FALSE(atomics_check(f, bytes_of(std::vector<float>{1280.0f}), {}));
  EXPECT_TRUE(atomics_check(f, bytes_of(std::vector<float>{1280.5f}), {}));
  AtomicsPlan w = p;
  w.config.type = AtomicType::u64;
  EXPECT_FALSE(atomics_check(w, bytes_of(std::vector<std::uint64_t>{1280}), {}));
  EXPECT_TRUE(atomics_check(w, bytes_of(std::vector<std::uint64_t>{1280 + (std::uint64_t{1} << 32)}), {}));
}

// Placements: each on a page of its own (2 MiB apart at least), at an
// offset within its page that moves from one to the next, none overlapping,
// and the check refuses a placement that was written.
TEST(AtomicsPlacements, EachOnItsOwnPageAtItsOwnOffsetNoneOverlapping) {
  AtomicsPlan p = host_plan({AtomicVariant::red, AtomicType::u64, AtomicSpace::global, AtomicSharing::thread, 1}, 8);
  p.placements = kAtomicsPlacements;
  const std::size_t bytes = p.target_elements * 8, page = std::size_t{2} << 20;
  std::set<std::size_t> pages, within;
  for (int k = 0; k < p.placements; ++k) {
    const std::size_t at = atomics_placement_offset(p, k);
    EXPECT_EQ(at % 4096, 0u) << k;
    pages.insert(at / page);
    within.insert(at % page);
    if (k > 0) {
      EXPECT_GE(at, atomics_placement_offset(p, k - 1) + bytes) << k;
      EXPECT_GT(at / page, atomics_placement_offset(p, k - 1) / page) << k;
    }
  }
  EXPECT_EQ(pages.size(), static_cast<std::size_t>(p.placements));
  EXPECT_GE(within.size(), 16u);
  EXPECT_EQ(atomics_target_bytes(p), atomics_placement_offset(p, p.placements - 1) + bytes);

  AtomicsPlan one = p;
  one.placements = 1;
  EXPECT_EQ(atomics_target_bytes(one), bytes);
}

TEST(AtomicsPlacements, TheCheckReadsPlacementZeroAndRefusesAnyOtherWritten) {
  AtomicsPlan p = host_plan({AtomicVariant::red, AtomicType::u32, AtomicSpace::global, AtomicSharing::warp, 3}, 2);
  p.placements = 3;
  std::vector<unsigned char> all(atomics_target_bytes(p), 0);
  const std::vector<std::uint32_t> right(p.target_elements, 96);
  std::memcpy(all.data() + atomics_placement_offset(p, 0), right.data(), right.size() * 4);
  EXPECT_FALSE(atomics_check_placements(p, all, {}));
  auto written = all;
  written[atomics_placement_offset(p, 2) + 5] = 1;
  const auto wrong = atomics_check_placements(p, written, {});
  ASSERT_TRUE(wrong);
  EXPECT_NE(wrong->find("placement 2"), std::string::npos) << *wrong;
  auto short_of_one = all;
  short_of_one[atomics_placement_offset(p, 0)] = 95;
  EXPECT_TRUE(atomics_check_placements(p, short_of_one, {}));
  all.pop_back();
  EXPECT_TRUE(atomics_check_placements(p, all, {}));
}

TEST(AtomicsPlacements, GlobalTargetsOfSeveralAddressesTakeTurnsOthersStay) {
  MEMBENCH_REQUIRE_GPU();
  for (AtomicSharing by : kAtomicSharings.all())
    for (AtomicSpace s : kAtomicSpaces.all()) {
      AtomicsPlan p;
      if (plan({AtomicVariant::red, AtomicType::u32, s, by, 1}, &p) != cudaSuccess) continue;
      const bool turns = s == AtomicSpace::global && by != AtomicSharing::grid;
      EXPECT_EQ(p.placements, turns ? kAtomicsPlacements : 1) << kAtomicSharings(by) << " " << kAtomicSpaces(s);
    }
}

TEST(AtomicsLaunch, ATargetOfAnotherWordIsRefusedBeforeAnyCudaCall) {
  AtomicsPlan p;
  p.config.type = AtomicType::f32;
  static int runs = 0;
  p.run = [](const AtomicsPlan&, AtomicTarget, double*, cudaStream_t) {
    ++runs;
    return cudaSuccess;
  };
  float f = 0;
  unsigned int u = 0;
  double d = 0;
  EXPECT_EQ(launch(p, &f, nullptr, nullptr), cudaSuccess);
  EXPECT_EQ(launch(p, &u, nullptr, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(launch(p, &d, nullptr, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(runs, 1);
  p.config.type = AtomicType::u32;
  EXPECT_EQ(launch(p, &u, nullptr, nullptr), cudaSuccess);
  EXPECT_EQ(launch(p, &f, nullptr, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(runs, 2);
  p.run = nullptr;  // not planned
  EXPECT_EQ(launch(p, &u, nullptr, nullptr), cudaErrorInvalidValue);
}

TEST(AtomicsKernels, EveryVariantWordSpaceAndSharingExact) {
  MEMBENCH_REQUIRE_GPU();
  for (AtomicVariant v : kAtomicVariants.all())
    for (AtomicType t : kAtomicTypes.all())
      for (AtomicSpace s : kAtomicSpaces.all())
        for (AtomicSharing by : kAtomicSharings.all()) {
          const AtomicsConfig c{v, t, s, by, 3};
          SCOPED_TRACE(std::string(kAtomicVariants(v)) + " " + std::string(kAtomicTypes(t)) + " " +
                       std::string(kAtomicSpaces(s)) + " " + std::string(kAtomicSharings(by)));
          AtomicsPlan p;
          const cudaError_t planned = plan(c, &p);
          if (s == AtomicSpace::shared && by == AtomicSharing::grid) {
            EXPECT_EQ(planned, cudaErrorInvalidValue);
            continue;
          }
          ASSERT_EQ(planned, cudaSuccess);
          DeviceAllocation target(p.target_elements * atomic_type_bytes(t)),
              tickets(p.ticket_elements * sizeof(double));
          MEMBENCH_CUDA(cudaMemset(target.get(), 0, target.bytes()));
          if (tickets.bytes() > 0) MEMBENCH_CUDA(launch_poison(tickets.get(), tickets.bytes(), nullptr));
          auto read_back = [&] {
            std::vector<unsigned char> host(target.bytes());
            MEMBENCH_CUDA(cudaMemcpy(host.data(), target.get(), host.size(), cudaMemcpyDeviceToHost));
            return atomics_check(p, host, copy_to_host(tickets.as<double>(), p.ticket_elements));
          };
          MEMBENCH_CUDA(launch(p, atomics_target(p, target, 0), tickets.as<double>(), nullptr));
          MEMBENCH_CUDA(cudaDeviceSynchronize());
          const auto wrong = read_back();
          EXPECT_FALSE(wrong) << *wrong;
          // A second launch adds again (global) or starts from zero (shared): the check
          // after one launch must then fail for global targets.
          MEMBENCH_CUDA(launch(p, atomics_target(p, target, 0), tickets.as<double>(), nullptr));
          MEMBENCH_CUDA(cudaDeviceSynchronize());
          if (s == AtomicSpace::global) { EXPECT_TRUE(read_back()); }
        }
}

}  // namespace
}  // namespace membench
