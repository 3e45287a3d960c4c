// PCIe switches in a scenario: GPUs below one switch share its uplink (a full uplink gives each GPU the same
// fraction of what its processes ask for and slows input-bound processes with it), and
// gpuwatchSimWriteSysfsTree lays the topology out as /sys shows it.
#include <filesystem>

#include "core/pcie_link.h"
#include "sim_library.h"

namespace gpuwatch::sim::test {
namespace {

constexpr double kGen5x16 = 63.0e9;  // bytes per second each way, after 128b/130b encoding

double rx_bytes(SimLibrary& lib, unsigned gpu) {
  unsigned kbs = 0;
  EXPECT_EQ(lib.api.nvmlDeviceGetPcieThroughput(lib.gpu(gpu), NVML_PCIE_UTIL_RX_BYTES, &kbs), NVML_SUCCESS);
  return kbs * 1000.0;
}

double utilization(SimLibrary& lib, unsigned gpu) {
  nvmlUtilization_t u{};
  EXPECT_EQ(lib.api.nvmlDeviceGetUtilizationRates(lib.gpu(gpu), &u), NVML_SUCCESS);
  return u.gpu;
}

TEST(PcieSwitch, LinkCapacityFollowsGenerationAndEncoding) {
  EXPECT_NEAR(pcie_link_bytes_per_second(pcie_gen_transfer_rate(5), 16), kGen5x16, 0.1e9);
  EXPECT_NEAR(pcie_link_bytes_per_second(pcie_gen_transfer_rate(4), 16), 31.5e9, 0.1e9);
  EXPECT_NEAR(pcie_link_bytes_per_second(pcie_gen_transfer_rate(2), 8), 4.0e9, 0.01e9);  // 8b/10b
  EXPECT_EQ(pcie_generation(32.0), 5U);
  EXPECT_EQ(pcie_generation(2.5), 1U);
  EXPECT_EQ(pcie_generation(3.0), 0U);
}

TEST(PcieSwitch, AFullUplinkSharesItsBandwidthAndSlowsInputBoundProcesses) {
  SimLibrary lib(scenario_path("pcie-contention-4xh200.yaml"));
  lib.init();
  lib.at(200);  // switch A: GPU0 alone asks for 30 GB/s
  const double alone = rx_bytes(lib, 0);
  EXPECT_NEAR(alone, 30e9 + 2.7e9, 2e9);
  EXPECT_NEAR(utilization(lib, 0), 90, 4);
  lib.at(420);  // GPU1 asks for 40 GB/s more: 70 GB/s asked of an uplink that carries about 51 of it
  const double shared = rx_bytes(lib, 0);
  const double total = shared + rx_bytes(lib, 1);
  EXPECT_LT(shared, 0.8 * alone) << "GPU0 gets its share, about three quarters";
  EXPECT_GT(total, 0.8 * kGen5x16);
  EXPECT_LT(total, 0.9 * kGen5x16);
  EXPECT_LT(utilization(lib, 0), 75) << "the trainer waits for its input";
  // Switch B: GPU3 alone streams 52 GB/s; its uplink is full but GPU2 moves almost nothing.
  EXPECT_GT(rx_bytes(lib, 3), 0.8 * kGen5x16);
  EXPECT_LT(rx_bytes(lib, 2), 1e9);
}

TEST(PcieSwitch, GpusWithoutASwitchGetWhatTheyAskFor) {
  SimLibrary lib(scenario_path("tests/basic.yaml"));
  lib.init();
  lib.at(60);
  EXPECT_LT(rx_bytes(lib, 0), 4e9) << "only the GPU's own traffic";
}

TEST(PcieSwitch, SysfsTreeShowsEachGpuBelowItsSwitch) {
  SimLibrary lib(scenario_path("pcie-contention-4xh200.yaml"));
  const auto root = std::filesystem::temp_directory_path() / ("sim-sys-" + std::to_string(::getpid()));
  EXPECT_EQ(lib.api.gpuwatchSimWriteSysfsTree(root.c_str()), NVML_ERROR_UNINITIALIZED);
  lib.init();
  ASSERT_EQ(lib.api.gpuwatchSimWriteSysfsTree(root.c_str()), NVML_SUCCESS);
  ASSERT_EQ(lib.api.gpuwatchSimWriteSysfsTree(root.c_str()), NVML_SUCCESS) << "rewriting works";
  const auto gpu1 = std::filesystem::canonical(root / "bus/pci/devices/0000:2a:00.0");
  EXPECT_EQ(gpu1, std::filesystem::canonical(root) /
                      "devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:2a:00.0");
  const auto gpu3 = std::filesystem::canonical(root / "bus/pci/devices/0000:5d:00.0");
  EXPECT_EQ(gpu3.parent_path().parent_path().filename(), "0000:03:00.0") << "switch B's upstream port";
  const auto uplink = root / "bus/pci/devices/0000:01:00.0";
  EXPECT_EQ(slurp(uplink / "current_link_speed"), "32.0 GT/s PCIe\n");
  EXPECT_EQ(slurp(uplink / "current_link_width"), "16\n");
  EXPECT_EQ(slurp(uplink / "class"), "0x060400\n");
  EXPECT_EQ(slurp(root / "bus/pci/devices/0000:18:00.0/vendor"), "0x10de\n");
  EXPECT_EQ(lib.api.gpuwatchSimWriteSysfsTree(nullptr), NVML_ERROR_INVALID_ARGUMENT);
  std::filesystem::remove_all(root);
}

TEST(PcieSwitch, SysfsTreePutsGpusWithoutASwitchBelowARootPortEach) {
  SimLibrary lib(scenario_path("tests/basic.yaml"));
  lib.init();
  const auto root = std::filesystem::temp_directory_path() / ("sim-sys-basic-" + std::to_string(::getpid()));
  ASSERT_EQ(lib.api.gpuwatchSimWriteSysfsTree(root.c_str()), NVML_SUCCESS);
  const auto gpu0 = std::filesystem::canonical(root / "bus/pci/devices/0000:18:00.0");
  EXPECT_EQ(gpu0, std::filesystem::canonical(root) / "devices/pci0000:00/0000:00:01.0/0000:18:00.0");
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace gpuwatch::sim::test
