// Transfer family and the link model: byte accounting, the theoretical link
// rates, bus-id matching; on the GPU every variant and host memory kind
// against the pattern, both ends checked.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "cases/copy_case.hpp"
#include "gpu.hpp"
#include "membench/chain.hpp"
#include "membench/hierarchy.hpp"
#include "membench/platform/links.hpp"
#include "membench/platform/pattern.hpp"
#include "membench/transfer.hpp"

namespace membench {
namespace {

TEST(LinkModel, PcieRatesPerDirection) {
  EXPECT_NEAR(pcie_bytes_per_second(5, 16), 63.0e9, 0.1e9);  // 32 GT/s x 128/130 x 16 / 8
  EXPECT_NEAR(pcie_bytes_per_second(4, 16), 31.5e9, 0.1e9);
  EXPECT_NEAR(pcie_bytes_per_second(3, 16), 15.75e9, 0.01e9);
  EXPECT_DOUBLE_EQ(pcie_bytes_per_second(2, 8), 5e9 * 0.8 * 8 / 8);
  // Gen 6: 64 GT/s in 256-byte flits carrying 242 bytes, x16 lanes / 8 bits: 64e9 x 242/256 x 2 = 121 GB/s.
  EXPECT_DOUBLE_EQ(pcie_bytes_per_second(6, 16), 121e9);
  EXPECT_DOUBLE_EQ(pcie_bytes_per_second(1, 1), 2.5e9 * 0.8 / 8);
  EXPECT_DOUBLE_EQ(pcie_bytes_per_second(0, 16), 0);
  EXPECT_DOUBLE_EQ(pcie_bytes_per_second(7, 16), 0);
  EXPECT_DOUBLE_EQ(pcie_bytes_per_second(5, 0), 0);
}

TEST(LinkModel, NvlinkRatesPerDirection) {
  EXPECT_DOUBLE_EQ(nvlink_bytes_per_second(9, 0, 18), 450e9);   // H100 / H200 SXM: 18 links
  EXPECT_DOUBLE_EQ(nvlink_bytes_per_second(8, 0, 12), 300e9);   // A100
  EXPECT_DOUBLE_EQ(nvlink_bytes_per_second(10, 0, 18), 900e9);  // B200
  EXPECT_DOUBLE_EQ(nvlink_bytes_per_second(7, 0, 6), 150e9);    // V100: 6 links of NVLink 2
  EXPECT_DOUBLE_EQ(nvlink_bytes_per_second(6, 0, 4), 80e9);     // P100: 4 links of NVLink 1 at 20 GB/s
  EXPECT_DOUBLE_EQ(nvlink_bytes_per_second(5, 0, 4), 0);
  EXPECT_DOUBLE_EQ(nvlink_bytes_per_second(8, 6, 4), 0);  // GA10x's bridge: no source, unknown, not the A100's
}

TEST(LinkModel, BusIdsInEitherForm) {
  EXPECT_TRUE(same_pci_function("0000:19:00.0", "00000000:19:00.0"));
  EXPECT_TRUE(same_pci_function("0000:9A:00.0", "00000000:9a:00.0"));
  EXPECT_FALSE(same_pci_function("0000:19:00.0", "0000:1a:00.0"));
  EXPECT_FALSE(same_pci_function("junk", "0000:19:00.0"));
}

TEST(TransferAccounting, DirectionsAndHostMemory) {
  // H2D comes in to the device, D2H goes out; both count the bytes of both directions.
  EXPECT_DOUBLE_EQ(copy_bytes(transfer_operation(TransferVariant::h2d_ce), 4096), 4096);
  EXPECT_DOUBLE_EQ(copy_bytes(transfer_operation(TransferVariant::bidirectional_ce), 4096), 8192);
  EXPECT_DOUBLE_EQ(copy_bytes(transfer_operation(TransferVariant::d2h_sm), 4096), 4096);
  const CopyOperation both = transfer_operation(TransferVariant::bidirectional_sm);
  EXPECT_TRUE(both.comes_in() && both.goes_out() && both.uses_sm());
  const CopyOperation h2d = transfer_operation(TransferVariant::h2d_sm);
  EXPECT_TRUE(h2d.comes_in() && !h2d.goes_out());
  EXPECT_EQ(transfer_operation(TransferVariant::d2h_ce).direction, CopyDirection::out);
  EXPECT_FALSE(transfer_operation(TransferVariant::d2h_ce).uses_sm());
  EXPECT_EQ(transfer_host_memory({TransferVariant::h2d_sm, TransferHost::pageable, 16}), HostMemory::mapped);
  EXPECT_EQ(transfer_host_memory({TransferVariant::h2d_ce, TransferHost::pageable, 16}), HostMemory::pageable);
  EXPECT_EQ(kTransferVariants(TransferVariant::h2d_ce), "host_to_device_memcpy_ce");
}

TEST(TransferAccounting, PassesMultiplyTheBytesAndStayInRange) {
  // An SM copy moves its bytes `passes` times a launch: each pass counts.
  EXPECT_DOUBLE_EQ(copy_bytes(transfer_operation(TransferVariant::h2d_sm), 4096, 16), 16 * 4096);
  EXPECT_DOUBLE_EQ(copy_bytes(transfer_operation(TransferVariant::bidirectional_sm), 4096, 3), 3 * 8192);
  // Refused before any CUDA call, so with or without a GPU.
  CopyPlan p;
  EXPECT_EQ(plan(false, &p, 0), cudaErrorInvalidValue);
  EXPECT_EQ(plan(true, &p, kCopyMaxPasses + 1), cudaErrorInvalidValue);
  EXPECT_EQ(p.passes, 1);  // a refused plan is left as it was
}

TEST(TransferHostPattern, FillsEveryFloat) {
  std::vector<float> host(100003);
  fill_host_pattern(host.data(), host.size(), 9);
  for (std::size_t i = 0; i < host.size(); i += 997) ASSERT_EQ(host[i], pattern_value(i, 9)) << i;
  EXPECT_EQ(host.back(), pattern_value(host.size() - 1, 9));
}

// A far end that owns nothing: enough to define a copy case on the CPU.
struct NoFarEnd {
  CopyEnds ends(const void*, void*) const { return {}; }
  const SideStream* side() const { return nullptr; }
  std::optional<std::string> check(std::uint32_t) const { return std::nullopt; }
};

// The copy engines move a _ce variant's bytes: no SM clock paces it, so none
// of its batches is dropped for a low one (beside another job, an SM clock
// held low once dropped every batch of a host copy).
TEST(TransferAccounting, ACopyEnginesCopyIsNotPacedByTheSmClock) {
  for (TransferVariant v : kTransferVariants.all()) {
    const CopyOperation op = transfer_operation(v);
    if (op.uses_sm()) continue;  // an SM copy plans a kernel: the GPU test below has those
    const auto copy = cases::copy_case(op, 4096, 3, std::make_shared<const NoFarEnd>(), EngineCopy{});
    EXPECT_TRUE(copy.copy_engine) << kTransferVariants(v);
    EXPECT_FALSE(copy.paced_by_clock) << kTransferVariants(v);
  }
}

TEST(TransferKernels, EveryVariantAndHostMemoryBothEnds) {
  MEMBENCH_REQUIRE_GPU();
  for (TransferVariant v : kTransferVariants.all())
    for (TransferHost h : kTransferHosts.all()) {
      // The SM variants use mapped memory whatever the host axis says: once is enough.
      if (transfer_operation(v).uses_sm() && h != TransferHost::pinned) continue;
      for (std::size_t bytes : {std::size_t{16}, std::size_t{4096}, (std::size_t{1} << 22) + 48}) {
        const TransferConfig c{v, h, bytes};
        SCOPED_TRACE(std::string(kTransferVariants(v)) + " " + std::string(kTransferHosts(h)) + " " +
                     std::to_string(bytes));
        const auto host = std::make_shared<const TransferHostSide>(c, 3);
        const auto copy = cases::copy_case(transfer_operation(v), bytes, 3, host, host_engine_copy(bytes));
        EXPECT_EQ(copy.copy_engine, !transfer_operation(v).uses_sm());
        test::expect_copied(bytes / 4, 3, transfer_operation(v).comes_in(), copy, [&] { return host->check(3); });
      }
    }
}

TEST(TransferKernels, SmCopiesOfSeveralPassesLeaveBothEndsRight) {
  MEMBENCH_REQUIRE_GPU();
  for (TransferVariant v : {TransferVariant::h2d_sm, TransferVariant::d2h_sm, TransferVariant::bidirectional_sm})
    for (int passes : {2, 5}) {
      TransferConfig c{v, TransferHost::pinned, (std::size_t{1} << 20) + 32};
      c.passes = passes;
      SCOPED_TRACE(std::string(kTransferVariants(v)) + " passes " + std::to_string(passes));
      const auto host = std::make_shared<const TransferHostSide>(c, 5);
      const auto copy = cases::copy_case(transfer_operation(v), c.bytes, 5, host, host_engine_copy(c.bytes), passes);
      test::expect_copied(c.bytes / 4, 5, transfer_operation(v).comes_in(), copy, [&] { return host->check(5); });
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

TEST(TransferKernels, HostLatencyChaseInMappedMemoryEndsWhereTheCycleSays) {
  MEMBENCH_REQUIRE_GPU();
  // The chain host_device_latency_sm chases: written by the GPU through the
  // mapping, every load past the L1, over the link.
  const LatencyConfig c{std::size_t{1} << 20, 128, false, kLinkChaseSteps};
  const HostBuffer chain(HostMemory::mapped, c.working_set);
  MEMBENCH_CUDA(fill_chain(c, chain.device_as<std::uint64_t>(), nullptr));
  DeviceBuffer<double> state(1);
  MEMBENCH_CUDA(launch_poison(state.get(), state.bytes(), nullptr));
  MEMBENCH_CUDA(cudaDeviceSynchronize());
  // The host sees the chain the GPU wrote: node j holds node j + 1's device address.
  const CycleOrder order(latency_nodes(c), kChaseKey);
  const auto* words = reinterpret_cast<const std::uint64_t*>(chain.host());
  const auto base = reinterpret_cast<std::uint64_t>(chain.device());
  for (std::uint64_t j : {std::uint64_t{0}, std::uint64_t{1}, latency_nodes(c) - 1})
    EXPECT_EQ(words[order.node(j) * 16], base + order.node((j + 1) % latency_nodes(c)) * 128) << j;
  MEMBENCH_CUDA(launch(test::planned<LatencyPlan>(c), chain.device_as<std::uint64_t>(), state.get(), nullptr));
  MEMBENCH_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(copy_to_host(state.get(), 1)[0], latency_expected(c));
  EXPECT_EQ(latency_expected(c), static_cast<double>(order.node(kLinkChaseSteps % latency_nodes(c))));
}

}  // namespace
}  // namespace membench
