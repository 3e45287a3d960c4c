// gpuwatchSimWriteProcTree lays out /proc entries for the scenario's processes.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim_library.h"

namespace gpuwatch::sim::test {
namespace {

TEST(ProcTree, WritesCommCmdlineCgroupStatusMapsAndPasswd) {
  SimLibrary lib(scenario_path("tests/basic.yaml"));
  const auto root = std::filesystem::temp_directory_path() / ("sim-proc-" + std::to_string(::getpid()));
  EXPECT_EQ(lib.api.gpuwatchSimWriteProcTree(root.c_str()), NVML_ERROR_UNINITIALIZED);
  lib.init();
  ASSERT_EQ(lib.api.gpuwatchSimWriteProcTree(root.c_str()), NVML_SUCCESS);
  EXPECT_EQ(slurp(root / "1001" / "comm"), "python3\n");
  EXPECT_EQ(slurp(root / "1001" / "cmdline"), std::string("python3\0train.py\0--epochs\0"
                                                          "3\0",
                                                          28));
  EXPECT_EQ(slurp(root / "1001" / "cgroup"),
            "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234.slice/"
            "cri-containerd-abc.scope\n");
  const std::string status = slurp(root / "1001" / "status");
  EXPECT_NE(status.find("Pid:\t1001\n"), std::string::npos);
  EXPECT_NE(status.find("PPid:\t1\n"), std::string::npos);
  const std::string maps = slurp(root / "1001" / "maps");
  EXPECT_NE(maps.find("r-xp 00000000 08:01 "), std::string::npos);
  EXPECT_NE(maps.find("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15\n"), std::string::npos);
  EXPECT_NE(slurp(root / "1002" / "maps").find("libcuda.so.550.54.15"), std::string::npos)
      << "default library";
  EXPECT_EQ(slurp(root / "1003" / "comm"), "Xorg\n");
  // Who runs them: alice is given the first free uid from 1001, 1002 has its own uid, 1003 the default one.
  EXPECT_NE(status.find("Uid:\t1001\t1001\t1001\t1001\nGid:\t1001\t1001\t1001\t1001\n"), std::string::npos)
      << status;
  EXPECT_NE(slurp(root / "1002" / "status").find("Uid:\t2001\t"), std::string::npos);
  EXPECT_NE(slurp(root / "1003" / "status").find("Uid:\t1000\t"), std::string::npos);
  EXPECT_EQ(slurp(root / "1003" / "cgroup"), "0::/user.slice/user-1000.slice/session-1.scope\n");
  // The host's passwd file, where gpuwatch looks for it in a proc tree (init's /etc), naming the users.
  EXPECT_EQ(slurp(root / "1" / "root" / "etc" / "passwd"),
            "root:x:0:0::/root:/bin/bash\nalice:x:1001:1001::/home/alice:/bin/bash\n");
  EXPECT_EQ(lib.api.gpuwatchSimWriteProcTree(nullptr), NVML_ERROR_INVALID_ARGUMENT);
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace gpuwatch::sim::test
