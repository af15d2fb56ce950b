// Host NUMA nodes: sysfs's lists, a GPU's node, the node a case chooses on
// hosts of one node and of several (read from a made-up sysfs), and host
// memory bound to a node, read back page by page from the kernel.
#include "membench/platform/numa.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace membench {
namespace {

namespace fs = std::filesystem;

// A sysfs tree of a made-up host in a temporary folder: its node lists, and
// whatever else a test writes into it.
class FakeSysfs {
 public:
  FakeSysfs(const std::string& name, const std::string& has_cpu, const std::string& has_memory) {
    root_ = fs::temp_directory_path() / ("membench_numa_" + name);
    fs::remove_all(root_);
    write("devices/system/node/has_cpu", has_cpu);
    write("devices/system/node/has_memory", has_memory);
  }
  ~FakeSysfs() { fs::remove_all(root_); }
  void write(const std::string& path, const std::string& line) const {
    fs::create_directories((root_ / path).parent_path());
    std::ofstream(root_ / path) << line << '\n';
  }
  std::string root() const { return root_.string(); }

 private:
  fs::path root_;
};

TEST(NumaLists, SysfsNodeListsBothWays) {
  EXPECT_EQ(parse_node_list("0"), std::vector<int>({0}));
  EXPECT_EQ(parse_node_list("0-1"), std::vector<int>({0, 1}));
  EXPECT_EQ(parse_node_list("0,2-4,7"), std::vector<int>({0, 2, 3, 4, 7}));
  for (const char* bad : {"", "x", "1-", "3-1", "0,", "-1", "0-1x"}) EXPECT_TRUE(parse_node_list(bad).empty()) << bad;
  EXPECT_EQ(format_node_list({0, 1, 3}), "0-1,3");
  EXPECT_EQ(format_node_list({2}), "2");
  EXPECT_EQ(format_node_list({}), "");
  EXPECT_EQ(format_node_list(parse_node_list("0,2-4,7")), "0,2-4,7");
}

TEST(NumaTopology, TheSocketsAreTheNodesWithCpusAndMemoryAndAGpuIsOnItsSlotsNode) {
  // Grace Hopper style: the GPU's memory is node 2, with no CPUs.
  const FakeSysfs sys("sockets", "0-1", "0-2");
  EXPECT_EQ(host_numa_nodes(sys.root()), std::vector<int>({0, 1}));
  sys.write("bus/pci/devices/0000:1b:00.0/numa_node", "1");
  sys.write("bus/pci/devices/0000:3c:00.0/numa_node", "-1");
  EXPECT_EQ(pci_numa_node("00000000:1B:00.0", sys.root()), 1);  // NVML's form: eight digits, upper case
  EXPECT_EQ(pci_numa_node("0000:1B:00.0", sys.root()), 1);      // CUDA's
  EXPECT_EQ(pci_numa_node("0000:3C:00.0", sys.root()), std::nullopt);
  EXPECT_EQ(pci_numa_node("0000:99:00.0", sys.root()), std::nullopt);
  EXPECT_TRUE(host_numa_nodes("/nonexistent").empty());
}

TEST(NumaTopology, TheNearestOtherNodeByTheDistanceTable) {
  const FakeSysfs sys("distance", "0-3", "0-3");
  sys.write("devices/system/node/node1/distance", "21 10 31 21");
  EXPECT_EQ(nearest_other_node(1, {0, 1, 2, 3}, sys.root()), 0);  // 0 and 3 tie: the first listed
  sys.write("devices/system/node/node1/distance", "31 10 31 21");
  EXPECT_EQ(nearest_other_node(1, {0, 1, 2, 3}, sys.root()), 3);
  EXPECT_EQ(nearest_other_node(0, {0}, sys.root()), std::nullopt);
  EXPECT_EQ(nearest_other_node(2, {0, 1, 2, 3}, sys.root()), 0);  // no table: the first other
}

TEST(NumaChoice, LocalIsTheGpusNodeRemoteTheNearestOtherAndOneNodeHasNoRemote) {
  const FakeSysfs sys("choice", "0-1", "0-1");
  sys.write("devices/system/node/node1/distance", "21 10");
  std::optional<int> node;
  std::string why;
  EXPECT_TRUE(choose_host_node(false, 1, {0, 1}, &node, &why, sys.root()));
  EXPECT_EQ(node, 1);
  EXPECT_TRUE(choose_host_node(true, 1, {0, 1}, &node, &why, sys.root()));
  EXPECT_EQ(node, 0);
  // Two sockets and a GPU whose node the firmware does not give: neither can be told.
  EXPECT_FALSE(choose_host_node(false, std::nullopt, {0, 1}, &node, &why, sys.root()));
  EXPECT_NE(why.find("not known"), std::string::npos);
  // One socket: local is it, whatever the GPU says, and nothing need be bound; remote is refused with the reason.
  node = 7;
  EXPECT_TRUE(choose_host_node(false, std::nullopt, {0}, &node, &why, sys.root()));
  EXPECT_EQ(node, std::nullopt);
  EXPECT_FALSE(choose_host_node(true, 0, {0}, &node, &why, sys.root()));
  EXPECT_EQ(why, "one NUMA node with CPUs on this host: all its memory is the GPU's own");
  // A host that lists no nodes: nothing to bind to locally, no remote.
  EXPECT_TRUE(choose_host_node(false, std::nullopt, {}, &node, &why, sys.root()));
  EXPECT_EQ(node, std::nullopt);
  EXPECT_FALSE(choose_host_node(true, std::nullopt, {}, &node, &why, sys.root()));
}

TEST(NodeMemory, BoundToThisHostsFirstNodeItsTouchedPagesLieThere) {
  const std::vector<int> nodes = host_numa_nodes();
  if (nodes.empty()) GTEST_SKIP() << "this host lists no NUMA nodes";
  const std::size_t bytes = std::size_t{8} << 20;
  NodeMemory m(bytes, nodes.front());
  ASSERT_NE(m.get(), nullptr);
  EXPECT_EQ(m.bytes(), bytes);
  std::memset(m.get(), 1, bytes);
  const std::vector<int> where = page_nodes(m.get(), bytes, 16);
  if (where.empty()) GTEST_SKIP() << "the kernel does not say where pages are (move_pages)";
  EXPECT_EQ(where.size(), bytes / 4096 / 16);
  for (int n : where) EXPECT_EQ(n, nodes.front());
  // Untouched memory has no pages yet.
  NodeMemory fresh(bytes, std::nullopt);
  for (int n : page_nodes(fresh.get(), bytes, 64)) EXPECT_EQ(n, -1);
  NodeMemory moved = std::move(m);
  EXPECT_EQ(m.get(), nullptr);
  EXPECT_EQ(moved.bytes(), bytes);
}

TEST(NodeMemory, ANodeTheHostDoesNotHaveIsRefused) { EXPECT_THROW(NodeMemory(1 << 20, 1000), std::runtime_error); }

}  // namespace
}  // namespace membench
