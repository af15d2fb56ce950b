// Managed family: the pages each touch pattern reads, the byte accounting
// and migration model of every variant, the host reference; on the GPU every
// variant the device offers against it, with its pages put back between
// launches, and a skip with the reason for the rest.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "gpu.hpp"
#include "membench/managed.hpp"
#include "membench/platform/pattern.hpp"

namespace membench {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(ManagedTouch, PagesReadAndTheirOrder) {
  const ManagedConfig seq{ManagedVariant::fault, ManagedTouch::sequential, kMiB};
  EXPECT_EQ(managed_pages(seq), 256u);
  EXPECT_EQ(managed_visited_pages(seq), 256u);
  for (std::uint64_t k : {0u, 1u, 255u}) EXPECT_EQ(managed_page_of(seq, k), k);

  const ManagedConfig strided{ManagedVariant::fault, ManagedTouch::strided, kMiB + 4096};  // 257 pages
  EXPECT_EQ(managed_visited_pages(strided), 17u);                                          // pages 0, 16, ..., 256
  EXPECT_EQ(managed_page_of(strided, 1), 16u);
  EXPECT_EQ(managed_page_of(strided, 16), 256u);
  EXPECT_DOUBLE_EQ(managed_read_bytes(strided), 17.0 * 4096);

  const ManagedConfig random{ManagedVariant::fault, ManagedTouch::random, 300 * 4096};
  std::set<std::uint64_t> seen;
  bool in_order = true;
  for (std::uint64_t k = 0; k < managed_visited_pages(random); ++k) {
    seen.insert(managed_page_of(random, k));
    in_order = in_order && managed_page_of(random, k) == k;
  }
  EXPECT_EQ(seen.size(), 300u);  // every page once
  EXPECT_EQ(*seen.rbegin(), 299u);
  EXPECT_FALSE(in_order);
}

TEST(ManagedModel, BytesMigratedAndOverTheLink) {
  auto config = [](ManagedVariant v) { return ManagedConfig{v, ManagedTouch::sequential, 64 * kMiB}; };
  const double bytes = 64.0 * kMiB;
  EXPECT_DOUBLE_EQ(managed_read_bytes(config(ManagedVariant::resident)), bytes);
  EXPECT_DOUBLE_EQ(managed_migrated_bytes(config(ManagedVariant::resident)), 0);
  EXPECT_DOUBLE_EQ(managed_link_bytes(config(ManagedVariant::resident)), 0);
  for (ManagedVariant v :
       {ManagedVariant::fault, ManagedVariant::prefetch, ManagedVariant::read_mostly, ManagedVariant::pageable}) {
    EXPECT_DOUBLE_EQ(managed_migrated_bytes(config(v)), bytes) << kManagedVariants(v);
    EXPECT_DOUBLE_EQ(managed_link_bytes(config(v)), bytes) << kManagedVariants(v);
  }
  EXPECT_DOUBLE_EQ(managed_migrated_bytes(config(ManagedVariant::remote)), 0);
  EXPECT_DOUBLE_EQ(managed_link_bytes(config(ManagedVariant::remote)), bytes);
  EXPECT_DOUBLE_EQ(managed_migrated_bytes(config(ManagedVariant::ping_pong)), 2 * bytes);
  // One page in 16 is read, but each lies in its own 64 KiB migration block: every block moves.
  ManagedConfig strided = config(ManagedVariant::fault);
  strided.touch = ManagedTouch::strided;
  EXPECT_DOUBLE_EQ(managed_read_bytes(strided), bytes / 16);
  EXPECT_DOUBLE_EQ(managed_migrated_bytes(strided), bytes);
  EXPECT_DOUBLE_EQ(managed_link_bytes(strided), bytes);
  strided.variant = ManagedVariant::remote;
  EXPECT_DOUBLE_EQ(managed_link_bytes(strided), bytes / 16);  // read in place: only what is read crosses
}

TEST(ManagedBuffer, OnlyVariantsWhosePagesMoveBackNeedAStepBeforeEachLaunch) {
  MEMBENCH_REQUIRE_GPU();
  int device = 0;
  MEMBENCH_CUDA(cudaGetDevice(&device));
  for (ManagedVariant v : kManagedVariants.all()) {
    if (!managed_variant_available(v, device, nullptr)) continue;
    const ManagedBuffer buffer({v, ManagedTouch::sequential, 64 * 1024}, device, 1);
    const bool moves_back = v == ManagedVariant::fault || v == ManagedVariant::prefetch ||
                            v == ManagedVariant::read_mostly || v == ManagedVariant::pageable;
    EXPECT_EQ(buffer.has_before_each(), moves_back) << kManagedVariants(v);
  }
}

TEST(ManagedConfig, BytesAreWholePages) {
  std::string why;
  EXPECT_TRUE(managed_config_supported({ManagedVariant::fault, ManagedTouch::random, 4096}, &why));
  for (std::size_t bytes : {std::size_t{0}, std::size_t{16}, std::size_t{4096 + 16}}) {
    EXPECT_FALSE(managed_config_supported({ManagedVariant::fault, ManagedTouch::random, bytes}, &why)) << bytes;
    EXPECT_NE(why.find("4096"), std::string::npos) << why;
  }
}

TEST(ManagedReference, BlockSumsOfThePagesItReads) {
  const ManagedConfig c{ManagedVariant::fault, ManagedTouch::random, 37 * 4096};
  const auto sums = managed_page_sums(c, 5);
  ASSERT_EQ(sums.size(), 37u);
  double page3 = 0;
  for (std::size_t e = 3 * 1024; e < 4 * 1024; ++e) page3 += pattern_value(e, 5);
  EXPECT_EQ(sums[3], page3);
  // Five blocks: block 2 reads pages k = 2, 7, 12, ... in the touch order.
  double want = 0;
  for (std::uint64_t k = 2; k < 37; k += 5) want += sums[managed_page_of(c, k)];
  EXPECT_EQ(managed_expected(c, sums, 5, 2), want);
  // Every page once over all blocks.
  double all = 0;
  for (unsigned b = 0; b < 5; ++b) all += managed_expected(c, sums, 5, b);
  EXPECT_EQ(all, std::accumulate(sums.begin(), sums.end(), 0.0));
}

TEST(ManagedKernels, EveryVariantAndTouchReadsItsPagesExactly) {
  MEMBENCH_REQUIRE_GPU();
  int device = 0;
  MEMBENCH_CUDA(cudaGetDevice(&device));
  for (ManagedVariant v : kManagedVariants.all())
    for (ManagedTouch t : kManagedTouches.all()) {
      const ManagedConfig c{v, t, 2 * kMiB + 3 * 4096};
      SCOPED_TRACE(std::string(kManagedVariants(v)) + " " + std::string(kManagedTouches(t)));
      std::string why;
      if (!managed_variant_available(v, device, &why)) {
        EXPECT_FALSE(why.empty());
        std::cout << "[ SKIPPED  ] " << kManagedVariants(v) << ": " << why << "\n";
        continue;
      }
      const ManagedBuffer buffer(c, device, 9);
      ManagedPlan p;
      ASSERT_EQ(plan(c, &p), cudaSuccess);
      const auto sums = managed_page_sums(c, 9);
      DeviceBuffer<double> partial(p.shape.grid);
      Stream stream;
      for (int launch_no = 0; launch_no < 2; ++launch_no) {  // twice: the pages put back between launches
        MEMBENCH_CUDA(launch_poison(partial.get(), partial.bytes(), stream.get()));
        MEMBENCH_CUDA(buffer.before_each(stream.get()));
        MEMBENCH_CUDA(buffer.before_kernel(stream.get()));
        MEMBENCH_CUDA(launch(p, buffer.data(), partial.get(), stream.get()));
        MEMBENCH_CUDA(cudaStreamSynchronize(stream.get()));
        const auto got = copy_to_host(partial.get(), p.shape.grid);
        for (unsigned b = 0; b < p.shape.grid; ++b)
          ASSERT_EQ(got[b], managed_expected(c, sums, p.shape.grid, b)) << "block " << b << ", launch " << launch_no;
      }
    }
}

}  // namespace
}  // namespace membench
