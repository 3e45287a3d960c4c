// AER counters and the driver version from a fake sysfs tree laid out as the kernel does.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim_support.h"
#include "sources/sysfs/pcie_aer.h"

namespace gpuwatch::kernel {
namespace {

void write(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(PcieAer, ReadsTheTotalsOfEachSeverity) {
  test::TempDir root;
  const auto dev = std::filesystem::path(root.path()) / "bus/pci/devices/0000:3b:00.0";
  write(dev / "aer_dev_correctable",
        "RxErr 3\nBadTLP 1\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\n"
        "TOTAL_ERR_COR 4\n");
  write(dev / "aer_dev_nonfatal", "Undefined 0\nDLP 0\nSDES 0\nTLP 2\nFCP 0\nTOTAL_ERR_NONFATAL 2\n");
  write(dev / "aer_dev_fatal", "Undefined 0\nDLP 1\nSDES 0\nTOTAL_ERR_FATAL 1\n");
  auto c = read_aer_counters(root.path(), "0000:3b:00.0");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->correctable, 4U);
  EXPECT_EQ(c->nonfatal, 2U);
  EXPECT_EQ(c->fatal, 1U);
  EXPECT_FALSE(read_aer_counters(root.path(), "0000:5e:00.0")) << "no such device";
}

TEST(PcieAer, OlderKernelsWithoutTotalsAreSummed) {
  EXPECT_EQ(parse_aer_total("RxErr 3\nBadTLP 1\n"), 4U);
  EXPECT_EQ(parse_aer_total("TOTAL_ERR_FATAL 7\n"), 7U);
  EXPECT_FALSE(parse_aer_total(""));
}

TEST(PcieAer, NvidiaModuleVersion) {
  test::TempDir root;
  EXPECT_FALSE(read_nvidia_module_version(root.path()));
  write(std::filesystem::path(root.path()) / "module/nvidia/version", "550.54.15\n");
  EXPECT_EQ(read_nvidia_module_version(root.path()), "550.54.15");
}

}  // namespace
}  // namespace gpuwatch::kernel
