// The scenario's pods: what gpuwatchSimPodResources lists (the kubelet's answer, with the simulated GPUs'
// UUIDs), the cgroups of processes that name a pod or a Slurm job, and the loader's errors with file:line.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "sim_library.h"

namespace gpuwatch::sim::test {
namespace {

TEST(Pods, TheKubeletsAnswerAndTheProcessesCgroups) {
  SimLibrary lib(scenario_path("shared-node-week.yaml"));
  char small[8];
  EXPECT_EQ(lib.api.gpuwatchSimPodResources(small, sizeof small), NVML_ERROR_UNINITIALIZED);
  lib.init();
  EXPECT_EQ(lib.api.gpuwatchSimPodResources(small, sizeof small), NVML_ERROR_INSUFFICIENT_SIZE);
  std::vector<char> buf(1 << 14);
  ASSERT_EQ(lib.api.gpuwatchSimPodResources(buf.data(), static_cast<unsigned>(buf.size())), NVML_SUCCESS);
  char uuid[96] = {};
  ASSERT_EQ(lib.api.nvmlDeviceGetUUID(lib.gpu(4), uuid, sizeof uuid), NVML_SUCCESS);
  const std::string text(buf.data());
  EXPECT_NE(text.find(std::string("research\teval-idle\teval\tnvidia.com/gpu\t") + uuid + "\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 6);  // two GPUs for the trainer, one for each other

  const auto root = std::filesystem::temp_directory_path() / ("sim-pods-" + std::to_string(::getpid()));
  ASSERT_EQ(lib.api.gpuwatchSimWriteProcTree(root.c_str()), NVML_SUCCESS);
  const std::string trainer = slurp(root / "61000" / "cgroup");
  EXPECT_TRUE(trainer.starts_with("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod"))
      << trainer;
  EXPECT_NE(trainer.find(".slice/cri-containerd-"), std::string::npos) << trainer;
  EXPECT_EQ(slurp(root / "61001" / "cgroup").substr(0, 110), trainer.substr(0, 110)) << "one pod, one slice";
  EXPECT_EQ(slurp(root / "64000" / "cgroup"),
            "0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0\n");
  std::filesystem::remove_all(root);
}

// A pod that starts at 1h, one that ends at 2h, and one recreated on another GPU at 3h: the kubelet lists
// each while it lives, and the recreated pod's processes get its new UID's cgroup.
TEST(Pods, PodsStartEndAndMoveMidScenario) {
  const auto path =
      std::filesystem::temp_directory_path() / ("sim-pods-time-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << "devices:\n  - {model: H200, count: 3}\n"
                         "pods:\n"
                         "  - {name: late, namespace: a, start: 1h, containers: [{name: c, gpus: [0]}]}\n"
                         "  - {name: early, namespace: a, stop: 2h, containers: [{name: c, gpus: [1]}]}\n"
                         "  - {name: mover, namespace: b, stop: 3h, containers: [{name: c, gpus: [1]}]}\n"
                         "  - {name: mover, namespace: b, start: 3h, containers: [{name: c, gpus: [2]}]}\n"
                         "processes:\n"
                         "  - {pid: 100, gpu: 1, pod: mover, stop: 3h}\n"
                         "  - {pid: 101, gpu: 2, pod: mover, start: 3h}\n";
  SimLibrary lib(path.string());
  lib.init();
  std::string uuids[3];
  for (unsigned i = 0; i < 3; ++i) {
    char uuid[96] = {};
    ASSERT_EQ(lib.api.nvmlDeviceGetUUID(lib.gpu(i), uuid, sizeof uuid), NVML_SUCCESS);
    uuids[i] = uuid;
  }
  const auto listed = [&] {
    std::vector<char> buf(1 << 14);
    EXPECT_EQ(lib.api.gpuwatchSimPodResources(buf.data(), static_cast<unsigned>(buf.size())), NVML_SUCCESS);
    return std::string(buf.data());
  };
  const auto line = [&](const std::string& ns, const std::string& pod, unsigned gpu) {
    return ns + "\t" + pod + "\tc\tnvidia.com/gpu\t" + uuids[gpu] + "\n";
  };
  EXPECT_EQ(listed(), line("a", "early", 1) + line("b", "mover", 1));
  lib.at(3600);
  EXPECT_EQ(listed(), line("a", "late", 0) + line("a", "early", 1) + line("b", "mover", 1));
  lib.at(2 * 3600);
  EXPECT_EQ(listed(), line("a", "late", 0) + line("b", "mover", 1));
  lib.at(3 * 3600);
  EXPECT_EQ(listed(), line("a", "late", 0) + line("b", "mover", 2));

  const auto root = std::filesystem::temp_directory_path() / ("sim-pods-time-" + std::to_string(::getpid()));
  ASSERT_EQ(lib.api.gpuwatchSimWriteProcTree(root.c_str()), NVML_SUCCESS);
  const std::string before = slurp(root / "100" / "cgroup"), after = slurp(root / "101" / "cgroup");
  EXPECT_TRUE(before.starts_with("0::/kubepods.slice/")) << before;
  EXPECT_NE(before.substr(0, 110), after.substr(0, 110)) << "the recreated pod has its own UID";
  std::filesystem::remove_all(root);
  std::filesystem::remove(path);
}

TEST(Pods, LoaderErrorsSayWhere) {
  const auto path =
      std::filesystem::temp_directory_path() / ("sim-pods-" + std::to_string(::getpid()) + ".yaml");
  SimLibrary lib(path.string());
  const std::string head = "devices:\n  - {model: H200, count: 2}\n";
  const std::pair<std::string, std::string> bad[] = {
      {"pods:\n  - {name: a, containers: [{name: c, gpus: [5]}]}\n", ":4:45: gpu index out of range"},
      {"pods:\n  - {name: a, containers: [{name: c, gpus: [x]}]}\n", ":4:45: expected a GPU index"},
      {"pods:\n  - {name: a}\n", ":4:5: a pod needs containers"},
      {"pods:\n  - {name: a, containers: [{name: c}]}\n  - {name: a, start: 1h, containers: [{name: c}]}\n",
       ":5:12: pod a is listed twice at the same time"},
      {"pods:\n  - {name: a, start: 2h, stop: 1h, containers: [{name: c}]}\n",
       ":4:32: stop must come after start"},
      {"processes:\n  - {pid: 1, pod: nope}\n", ":4:19: no pod named nope"},
      {"processes:\n  - {pid: 1, slurm_job: \"12a\"}\n", ":4:25: a Slurm job id is a number"},
  };
  for (const auto& [yaml, error] : bad) {
    std::ofstream(path) << head << yaml;
    EXPECT_EQ(lib.api.nvmlInit_v2(), NVML_ERROR_UNKNOWN) << yaml;
    EXPECT_NE(lib.last_error().find(error), std::string::npos) << lib.last_error();
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gpuwatch::sim::test
