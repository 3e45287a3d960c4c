// The PCIe links GPUs share, from fake sysfs trees laid out as the kernel does: devices below their bridges
// under devices/pci<domain>:<bus>/, and bus/pci/devices/<bdf> links into them.
#include <gtest/gtest.h>

#include <filesystem>

#include "fake_pci_tree.h"
#include "sim_support.h"
#include "sources/sysfs/pcie_topology.h"

namespace gpuwatch::kernel {
namespace {

namespace fs = std::filesystem;

class FakeSysfs {
 public:
  void add(const std::string& path, const std::string& speed = "32.0 GT/s PCIe",
           const std::string& width = "16") {
    test::add_pci_function(root_.path(), path, speed, width);
  }
  const std::string& root() const { return root_.path(); }

 private:
  test::TempDir root_;
};

// Two GPUs below one switch (root port 00:01.0 -> upstream 01:00.0 -> downstream 02:00.0 / 02:01.0), and a
// third GPU below a root port of its own.
void two_behind_a_switch(FakeSysfs& s) {
  test::add_switch_with_two_gpus(s.root(), "0000:18:00.0", "0000:2a:00.0");
  s.add("pci0000:00/0000:00:02.0");
  s.add("pci0000:00/0000:00:02.0/0000:3a:00.0");
}

TEST(PcieTopology, GpusBelowOneSwitchShareItsUplink) {
  FakeSysfs s;
  two_behind_a_switch(s);
  const auto links = read_shared_pcie_links(s.root(), {"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0"});
  ASSERT_EQ(links.size(), 1U);
  EXPECT_EQ(links[0].device, "0000:01:00.0");
  EXPECT_EQ(links[0].upstream, "0000:00:01.0");
  EXPECT_EQ(links[0].gpus, (std::vector<std::string>{"0000:18:00.0", "0000:2a:00.0"}));
  EXPECT_DOUBLE_EQ(links[0].current.gt_per_s, 32.0);
  EXPECT_EQ(links[0].current.width, 16U);
  EXPECT_NEAR(links[0].capacity_bytes_per_second(), 63.0e9, 0.1e9);
}

TEST(PcieTopology, OneGpuBelowASwitchSharesNothing) {
  FakeSysfs s;
  two_behind_a_switch(s);
  EXPECT_TRUE(read_shared_pcie_links(s.root(), {"0000:18:00.0", "0000:3a:00.0"}).empty());
}

TEST(PcieTopology, NestedSwitchesGiveALinkPerLevel) {
  FakeSysfs s;
  s.add("pci0000:80/0000:80:01.0");
  s.add("pci0000:80/0000:80:01.0/0000:81:00.0", "16.0 GT/s PCIe", "8");  // top switch: a narrow uplink
  for (const char* down : {"0000:82:00.0", "0000:82:01.0"}) {
    const std::string port = std::string("pci0000:80/0000:80:01.0/0000:81:00.0/") + down;
    s.add(port);
  }
  const std::string inner = "pci0000:80/0000:80:01.0/0000:81:00.0/0000:82:00.0/0000:83:00.0";
  s.add(inner);  // a second switch below the first one's port 82:00.0
  s.add(inner + "/0000:84:00.0");
  s.add(inner + "/0000:84:01.0");
  s.add(inner + "/0000:84:00.0/0000:9a:00.0");
  s.add(inner + "/0000:84:01.0/0000:ab:00.0");
  s.add("pci0000:80/0000:80:01.0/0000:81:00.0/0000:82:01.0/0000:ba:00.0");
  const auto links = read_shared_pcie_links(s.root(), {"0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0"});
  ASSERT_EQ(links.size(), 3U);
  EXPECT_EQ(links[0].device, "0000:81:00.0");  // the top uplink: all three GPUs
  EXPECT_EQ(links[0].gpus.size(), 3U);
  EXPECT_NEAR(links[0].capacity_bytes_per_second(), 15.75e9, 0.05e9);
  EXPECT_EQ(links[1].device, "0000:82:00.0");  // the port to the inner switch: two GPUs
  EXPECT_EQ(links[2].device, "0000:83:00.0");  // the inner switch's uplink: the same two
  EXPECT_EQ(links[2].gpus, (std::vector<std::string>{"0000:9a:00.0", "0000:ab:00.0"}));
  EXPECT_DOUBLE_EQ(links[0].max.gt_per_s, 32.0);
}

TEST(PcieTopology, UnknownSpeedLeavesTheCapacityUnknown) {
  FakeSysfs s;
  s.add("pci0000:00/0000:00:01.0");
  s.add("pci0000:00/0000:00:01.0/0000:01:00.0", "Unknown", "0");
  s.add("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0");
  s.add("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0");
  s.add("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:18:00.0");
  s.add("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:2a:00.0");
  const auto links = read_shared_pcie_links(s.root(), {"0000:18:00.0", "0000:2a:00.0"});
  ASSERT_EQ(links.size(), 1U);
  EXPECT_EQ(links[0].capacity_bytes_per_second(), 0);
}

TEST(PcieTopology, MissingTreeOrDeviceSharesNothing) {
  test::TempDir empty;
  EXPECT_TRUE(read_shared_pcie_links(empty.path(), {"0000:18:00.0", "0000:2a:00.0"}).empty());
  EXPECT_TRUE(read_shared_pcie_links(empty.path() + "/absent", {"0000:18:00.0"}).empty());
  FakeSysfs s;
  two_behind_a_switch(s);
  EXPECT_TRUE(read_shared_pcie_links(s.root(), {"0000:18:00.0", "0000:ff:00.0"}).empty());
}

TEST(PcieTopology, LinkSpeedTextOfEveryKernel) {
  EXPECT_EQ(parse_link_speed("32.0 GT/s PCIe\n"), 32.0);
  EXPECT_EQ(parse_link_speed("8 GT/s"), 8.0);
  EXPECT_EQ(parse_link_speed("2.5 GT/s"), 2.5);
  EXPECT_EQ(parse_link_speed("16.0 GT/s PCIe"), 16.0);
  EXPECT_FALSE(parse_link_speed("Unknown"));
  EXPECT_FALSE(parse_link_speed("Unknown speed"));
  EXPECT_FALSE(parse_link_speed("32.0 MB/s"));
  EXPECT_FALSE(parse_link_speed(""));
}

}  // namespace
}  // namespace gpuwatch::kernel
