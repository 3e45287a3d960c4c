// The kernel log the simulator writes for its scenario: driver load, NVRM: Xid lines with the process the
// driver would name, fallen off the bus, AER messages, in /dev/kmsg record format, appended as scenario time
// moves (and only appended, so a reader keeping the file open sees each record once).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim_library.h"

namespace gpuwatch::sim::test {
namespace {

TEST(KernelLog, FollowsScenarioTimeAndOnlyAppends) {
  SimLibrary lib(scenario_path("tests/faults.yaml"));
  const auto path = std::filesystem::temp_directory_path() / ("sim-kmsg-" + std::to_string(::getpid()));
  EXPECT_EQ(lib.api.gpuwatchSimWriteKernelLog(path.c_str()), NVML_ERROR_UNINITIALIZED);
  lib.init();
  ASSERT_EQ(lib.api.gpuwatchSimWriteKernelLog(path.c_str()), NVML_SUCCESS);
  const std::string start = slurp(path);
  EXPECT_EQ(start.rfind("6,1,600000000,-;NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15", 0), 0U)
      << start;
  EXPECT_EQ(start.find("Xid"), std::string::npos) << "no fault has begun";

  lib.at(150);
  ASSERT_EQ(lib.api.gpuwatchSimWriteKernelLog(path.c_str()), NVML_SUCCESS);
  const std::string later = slurp(path);
  EXPECT_EQ(later.rfind(start, 0), 0U) << "the earlier records stay as they were";
  // GPU 3 fell off the bus at 2m; GPU 6 (no processes: the driver names none) had XID 13 at 2m.
  EXPECT_NE(later.find("): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."),
            std::string::npos)
      << later;
  EXPECT_NE(later.find(":00.0: GPU has fallen off the bus."), std::string::npos);
  EXPECT_NE(later.find("): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception"),
            std::string::npos)
      << later;
  EXPECT_NE(later.find("AER: Corrected error received"), std::string::npos) << "replays on GPU 4 from 1m";
  EXPECT_EQ(later.find("): 48,"), std::string::npos) << "the double-bit error comes at 3m";

  lib.at(200);
  ASSERT_EQ(lib.api.gpuwatchSimWriteKernelLog(path.c_str()), NVML_SUCCESS);
  EXPECT_NE(slurp(path).find("): 48, pid='<unknown>', name=<unknown>, DBE (double bit error) ECC error"),
            std::string::npos)
      << "GPU 2 runs no process: the driver names none";
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gpuwatch::sim::test
