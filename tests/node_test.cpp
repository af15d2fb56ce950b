// Node family: every GPU at once. Without a GPU: the variants, what one
// launch moves, the refusals and the NVLink egress model. With two or more
// GPUs: every variant's copies land, each GPU's time is read, and a copy
// that never ran is caught.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu.hpp"
#include "membench/node.hpp"

namespace membench {
namespace {

TEST(NodeConfig, VariantsNamesAndWhatALaunchMoves) {
  EXPECT_EQ(kNodeVariants(NodeVariant::all_to_host_ce), "all_to_host_memcpy_ce");
  EXPECT_EQ(kNodeVariants(NodeVariant::host_to_all_sm), "host_to_all_memcpy_sm");
  EXPECT_EQ(kNodeVariants(NodeVariant::all_to_all_ce), "all_to_all_memcpy_write_ce");
  EXPECT_TRUE(node_to_peers(NodeVariant::all_to_all_sm));
  EXPECT_FALSE(node_to_peers(NodeVariant::all_to_host_sm));
  EXPECT_TRUE(node_uses_sm(NodeVariant::all_to_host_sm));
  EXPECT_FALSE(node_uses_sm(NodeVariant::all_to_all_ce));
  EXPECT_TRUE(node_comes_in(NodeVariant::host_to_all_ce));
  EXPECT_FALSE(node_comes_in(NodeVariant::all_to_host_ce));
  EXPECT_FALSE(node_comes_in(NodeVariant::all_to_all_sm));
  // A host copy is one per GPU whatever the count; all-to-all writes to each other GPU.
  EXPECT_EQ(node_copies_per_device(NodeVariant::all_to_host_ce, 8), 1);
  EXPECT_EQ(node_copies_per_device(NodeVariant::all_to_all_ce, 2), 1);
  EXPECT_EQ(node_copies_per_device(NodeVariant::all_to_all_sm, 8), 7);
  // 2 GPUs x 1 copy x 64 bytes; 4 GPUs x 3 copies x 64 bytes.
  EXPECT_EQ(node_bytes({NodeVariant::host_to_all_ce, 64}, 2), 128.0);
  EXPECT_EQ(node_bytes({NodeVariant::all_to_all_ce, 64}, 4), 768.0);
}

TEST(NodeConfig, RefusalsSayWhy) {
  std::string why;
  EXPECT_FALSE(node_supported({NodeVariant::all_to_host_ce, 64}, 0, 1, &why));
  EXPECT_EQ(why, "needs two GPUs; 1 visible");
  EXPECT_FALSE(node_supported({NodeVariant::all_to_host_ce, 64}, 1, 2, &why));
  EXPECT_EQ(why, "a node-wide case runs once per node, from device 0 (this is device 1)");
  EXPECT_FALSE(node_supported({NodeVariant::host_to_all_sm, 24}, 0, 2, &why));
  EXPECT_EQ(why, "bytes must be a positive multiple of 16");
  EXPECT_FALSE(node_supported({NodeVariant::host_to_all_sm, 0}, 0, 2, &why));
  EXPECT_TRUE(node_supported({NodeVariant::host_to_all_sm, 16}, 0, 2, &why));
}

TEST(NodeModel, EgressCountsSwitchLinksOnceAndDirectLinksEach) {
  // Two GPUs on NVSwitches, 18 links each: all 18 reach the peer.
  EXPECT_EQ(node_egress_links({0, 18}, {0, 18}), 18);
  // Eight on NVSwitches: each path reports the same 18 links, counted once.
  EXPECT_EQ(node_egress_links({0, 18, 18, 18, 18, 18, 18, 18}, {0, 18, 18, 18, 18, 18, 18, 18}), 18);
  // Four in a direct mesh, 4 links to each other GPU: 3 x 4.
  EXPECT_EQ(node_egress_links({0, 4, 4, 4}, {0, 0, 0, 0}), 12);
  // 6 switch links, and 2 direct links to GPU 1 only: 6 + 2.
  EXPECT_EQ(node_egress_links({0, 8, 6}, {0, 6, 6}), 8);
  EXPECT_EQ(node_egress_links({0, 0}, {0, 0}), 0);
}

int visible_gpus() {
  int visible = 0;
  MEMBENCH_CUDA(cudaGetDeviceCount(&visible));
  return visible;
}

TEST(NodeKernels, EveryVariantLandsOnEveryGpuAndEachTimesItself) {
  MEMBENCH_REQUIRE_GPU();
  const int visible = visible_gpus();
  if (visible < 2) GTEST_SKIP() << "needs two GPUs; " << visible << " visible";
  MEMBENCH_CUDA(cudaSetDevice(0));
  for (NodeVariant v : kNodeVariants.all())
    for (std::size_t bytes : {std::size_t{16}, (std::size_t{1} << 22) + 48}) {
      SCOPED_TRACE(std::string(kNodeVariants(v)) + " " + std::to_string(bytes));
      const NodeCopy node({v, bytes}, visible, 9);
      EXPECT_EQ(node.device_bytes(), static_cast<double>(bytes) * node_copies_per_device(v, visible));
      Stream stream;
      MEMBENCH_CUDA(node.launch(stream.get()));
      MEMBENCH_CUDA(cudaStreamSynchronize(stream.get()));
      int current = -1;
      MEMBENCH_CUDA(cudaGetDevice(&current));
      EXPECT_EQ(current, 0);  // the launch leaves the conductor current
      const auto wrong = node.check();
      EXPECT_FALSE(wrong) << *wrong;
      std::vector<double> seconds;
      MEMBENCH_CUDA(node.device_seconds(&seconds));
      ASSERT_EQ(seconds.size(), static_cast<std::size_t>(visible));
      for (double s : seconds) EXPECT_GT(s, 0.0);
    }
}

TEST(NodeKernels, ACopyThatNeverRanIsCaught) {
  MEMBENCH_REQUIRE_GPU();
  const int visible = visible_gpus();
  if (visible < 2) GTEST_SKIP() << "needs two GPUs; " << visible << " visible";
  MEMBENCH_CUDA(cudaSetDevice(0));
  for (NodeVariant v : {NodeVariant::all_to_host_ce, NodeVariant::host_to_all_sm, NodeVariant::all_to_all_ce}) {
    const NodeCopy node({v, 4096}, visible, 9);
    const auto wrong = node.check();
    ASSERT_TRUE(wrong) << kNodeVariants(v);
    EXPECT_NE(wrong->find("poison"), std::string::npos) << *wrong;
  }
}

}  // namespace
}  // namespace membench
