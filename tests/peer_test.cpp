// Peer family: which GPU pairs with which, what is refused and why; with
// two GPUs every variant, with and without peer access, both ends checked.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <utility>

#include "cases/copy_case.hpp"
#include "gpu.hpp"
#include "membench/peer.hpp"
#include "membench/platform/pattern.hpp"

namespace membench {
namespace {

TEST(PeerConfig, PairsAndRefusals) {
  EXPECT_EQ(peer_of(0, 2), 1);
  EXPECT_EQ(peer_of(1, 2), 0);
  EXPECT_EQ(peer_of(3, 8), 4);
  EXPECT_EQ(peer_of(7, 8), 0);  // the last pairs with the first
  EXPECT_EQ(peer_of(0, 1), 0);  // alone: itself (the case is skipped)
  std::string why;
  // Over the steps 1 .. visible - 1 each GPU reaches every other once.
  for (int visible : {2, 4, 8}) {
    std::set<std::pair<int, int>> reached;
    for (int device = 0; device < visible; ++device)
      for (int step = 1; step < visible; ++step) {
        EXPECT_TRUE(peer_step_supported(step, visible, &why)) << why;
        const int peer = peer_of(device, visible, step);
        EXPECT_NE(peer, device);
        reached.insert({device, peer});
      }
    EXPECT_EQ(reached.size(), static_cast<std::size_t>(visible * (visible - 1))) << visible;
  }
  EXPECT_EQ(peer_of(6, 8, 3), 1);
  EXPECT_FALSE(peer_step_supported(2, 2, &why));
  EXPECT_EQ(why, "peer_step 2 needs 3 GPUs; 2 visible");
  EXPECT_FALSE(peer_step_supported(0, 4, &why));
  EXPECT_FALSE(peer_step_supported(1, 1, &why));
  EXPECT_EQ(why, "needs two GPUs; 1 visible");
  EXPECT_FALSE(peer_supported({PeerVariant::read_ce, true, 64}, 0, 0, 1, &why));
  EXPECT_EQ(why, "needs two GPUs; 1 visible");
  EXPECT_FALSE(peer_supported({PeerVariant::read_sm, false, 64}, 0, 1, 2, &why));
  EXPECT_NE(why.find("only with peer access"), std::string::npos);
  // A read comes in from the peer, a write goes out to it; nvbandwidth's order of the variants.
  const CopyOperation both_sm = peer_operation(PeerVariant::bidirectional_sm);
  EXPECT_TRUE(both_sm.comes_in() && both_sm.goes_out() && both_sm.uses_sm());
  EXPECT_DOUBLE_EQ(copy_bytes(both_sm, 64), 128);
  const CopyOperation write = peer_operation(PeerVariant::write_ce);
  EXPECT_TRUE(write.goes_out() && !write.comes_in() && !write.uses_sm());
  EXPECT_DOUBLE_EQ(copy_bytes(write, 64), 64);
  EXPECT_EQ(peer_operation(PeerVariant::read_sm).direction, CopyDirection::in);
  EXPECT_EQ(kPeerVariants(PeerVariant::read_ce), "device_to_device_memcpy_read_ce");
}

TEST(PeerKernels, EveryVariantWithAndWithoutPeerAccess) {
  MEMBENCH_REQUIRE_GPU();
  int visible = 0;
  MEMBENCH_CUDA(cudaGetDeviceCount(&visible));
  if (visible < 2) GTEST_SKIP() << "needs two GPUs; " << visible << " visible";
  MEMBENCH_CUDA(cudaSetDevice(0));
  for (PeerVariant v : kPeerVariants.all())
    for (bool access : {true, false})
      for (std::size_t bytes : {std::size_t{16}, (std::size_t{1} << 22) + 48}) {
        const PeerConfig c{v, access, bytes};
        SCOPED_TRACE(std::string(kPeerVariants(v)) + (access ? " access" : " no access") + " " + std::to_string(bytes));
        std::string why;
        if (!peer_supported(c, 0, 1, visible, &why)) continue;
        MEMBENCH_CUDA(set_peer_access(0, 1, access));
        const auto side = std::make_shared<const PeerSide>(c, 0, 1, 4);
        const auto copy = cases::copy_case(peer_operation(v), bytes, 4, side, side->engine_copy());
        test::expect_copied(bytes / 4, 4, peer_operation(v).comes_in(), copy, [&] { return side->check(4); });
      }
  MEMBENCH_CUDA(set_peer_access(0, 1, false));
}

TEST(PeerKernels, AnAccessScopePutsAccessBackAsItFoundIt) {
  MEMBENCH_REQUIRE_GPU();
  int visible = 0;
  MEMBENCH_CUDA(cudaGetDeviceCount(&visible));
  if (visible < 2) GTEST_SKIP() << "needs two GPUs; " << visible << " visible";
  MEMBENCH_CUDA(set_peer_access(0, 1, false));
  {
    const PeerAccess on(0, 1, true);
    EXPECT_TRUE(peer_access_enabled(0, 1));
    EXPECT_TRUE(peer_access_enabled(1, 0));
    {
      const PeerAccess off(0, 1, false);
      EXPECT_FALSE(peer_access_enabled(0, 1));
    }
    EXPECT_TRUE(peer_access_enabled(0, 1));
  }
  EXPECT_FALSE(peer_access_enabled(0, 1));
  EXPECT_FALSE(peer_access_enabled(1, 0));
}

}  // namespace
}  // namespace membench
