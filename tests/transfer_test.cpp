// Transfer family and the link model: byte accounting, the theoretical link
// rates, bus-id matching; on the GPU every variant and host memory kind
// against the pattern, both ends checked.
#include <gtest/gtest.h>

#include "gpu.hpp"
#include "membench/links.hpp"
#include "membench/pattern.hpp"
#include "membench/transfer.hpp"

namespace membench {
namespace {

TEST(LinkModel, PcieRatesPerDirection) {
  EXPECT_NEAR(pcie_bytes_per_second(5, 16), 63.0e9, 0.1e9);  // 32 GT/s x 128/130 x 16 / 8
  EXPECT_NEAR(pcie_bytes_per_second(4, 16), 31.5e9, 0.1e9);
  EXPECT_NEAR(pcie_bytes_per_second(3, 16), 15.75e9, 0.01e9);
  EXPECT_DOUBLE_EQ(pcie_bytes_per_second(2, 8), 5e9 * 0.8 * 8 / 8);
  EXPECT_DOUBLE_EQ(pcie_bytes_per_second(0, 16), 0);
  EXPECT_DOUBLE_EQ(pcie_bytes_per_second(7, 16), 0);
}

TEST(LinkModel, NvlinkRatesPerDirection) {
  EXPECT_DOUBLE_EQ(nvlink_bytes_per_second(9, 18), 450e9);   // H100 / H200 SXM: 18 links
  EXPECT_DOUBLE_EQ(nvlink_bytes_per_second(8, 12), 300e9);   // A100
  EXPECT_DOUBLE_EQ(nvlink_bytes_per_second(10, 18), 900e9);  // B200
  EXPECT_DOUBLE_EQ(nvlink_bytes_per_second(5, 4), 0);
}

TEST(LinkModel, BusIdsInEitherForm) {
  EXPECT_TRUE(same_pci_function("0000:19:00.0", "00000000:19:00.0"));
  EXPECT_TRUE(same_pci_function("0000:9A:00.0", "00000000:9a:00.0"));
  EXPECT_FALSE(same_pci_function("0000:19:00.0", "0000:1a:00.0"));
  EXPECT_FALSE(same_pci_function("junk", "0000:19:00.0"));
}

TEST(TransferAccounting, DirectionsAndHostMemory) {
  EXPECT_DOUBLE_EQ(transfer_bytes({TransferVariant::h2d_ce, TransferHost::pinned, 4096}), 4096);
  EXPECT_DOUBLE_EQ(transfer_bytes({TransferVariant::bidirectional_ce, TransferHost::pinned, 4096}), 8192);
  EXPECT_DOUBLE_EQ(transfer_bytes({TransferVariant::d2h_sm, TransferHost::pinned, 4096}), 4096);
  EXPECT_TRUE(transfer_to_device(TransferVariant::bidirectional_sm) && transfer_to_host(TransferVariant::bidirectional_sm));
  EXPECT_FALSE(transfer_to_host(TransferVariant::h2d_sm));
  EXPECT_EQ(transfer_host_memory({TransferVariant::h2d_sm, TransferHost::pageable, 16}), HostMemory::mapped);
  EXPECT_EQ(transfer_host_memory({TransferVariant::h2d_ce, TransferHost::pageable, 16}), HostMemory::pageable);
  EXPECT_EQ(kTransferVariants(TransferVariant::h2d_ce), "host_to_device_memcpy_ce");
}

TEST(TransferHostPattern, FillsEveryFloat) {
  std::vector<float> host(100003);
  fill_host_pattern(host.data(), host.size(), 9);
  for (std::size_t i = 0; i < host.size(); i += 997) ASSERT_EQ(host[i], pattern_value(i, 9)) << i;
  EXPECT_EQ(host.back(), pattern_value(host.size() - 1, 9));
}

TEST(TransferKernels, EveryVariantAndHostMemoryBothEnds) {
  MEMBENCH_REQUIRE_GPU();
  for (TransferVariant v : kTransferVariants.all())
    for (TransferHost h : kTransferHosts.all()) {
      // The SM variants use mapped memory whatever the host axis says: once is enough.
      if (transfer_uses_sm(v) && h != TransferHost::pinned) continue;
      for (std::size_t bytes : {std::size_t{16}, std::size_t{4096}, (std::size_t{1} << 22) + 48}) {
        const TransferConfig c{v, h, bytes};
        SCOPED_TRACE(std::string(kTransferVariants(v)) + " " + std::string(kTransferHosts(h)) + " " +
                     std::to_string(bytes));
        const TransferHostSide host(c, 3);
        test::expect_copied(
            bytes / 4, 3, transfer_to_device(v),
            [&](const void* in, void* out, cudaStream_t s) { return launch(c, host, in, out, s); },
            [&] { return host.check(3); });
      }
    }
}

TEST(TransferKernels, ADestinationLeftPoisonedIsCaught) {
  MEMBENCH_REQUIRE_GPU();
  const TransferConfig c{TransferVariant::d2h_ce, TransferHost::pinned, 4096};
  const TransferHostSide host(c, 3);
  const auto wrong = host.check(3);  // nothing launched: still poison
  ASSERT_TRUE(wrong);
  EXPECT_NE(wrong->find("poison (never written)"), std::string::npos) << *wrong;
}

}  // namespace
}  // namespace membench
