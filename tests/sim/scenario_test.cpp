// Scenario files: every shipped one loads; a bad one makes nvmlInit_v2 fail with NVML_ERROR_UNKNOWN and
// gpuwatchSimLastError says file:line:column and what was expected.
#include <filesystem>
#include <fstream>
#include <regex>

#include "sim_library.h"

namespace gpuwatch::sim::test {
namespace {

TEST(Scenario, EveryShippedScenarioLoads) {
  SimLibrary lib(scenario_path("tests/basic.yaml"));
  int loaded = 0;
  for (const auto& dir : {scenario_path(""), scenario_path("tests")}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      // SLO files live beside their scenario (<scenario>.slos.yaml): they are no scenarios.
      if (entry.path().extension() != ".yaml" || name.starts_with("bad-") || name.ends_with(".slos.yaml"))
        continue;
      ::setenv("GPUWATCH_SIM_SCENARIO", entry.path().c_str(), 1);
      ASSERT_EQ(lib.api.nvmlInit_v2(), NVML_SUCCESS) << name << ": " << lib.last_error();
      unsigned count = 0;
      EXPECT_EQ(lib.api.nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
      EXPECT_GT(count, 0U) << name;
      ASSERT_EQ(lib.api.nvmlShutdown(), NVML_SUCCESS);
      ++loaded;
    }
  }
  EXPECT_GE(loaded, 7);
}

struct BadScenario {
  const char* file;
  const char* where;  // line:column
  const char* says;
};
void PrintTo(const BadScenario& bad, std::ostream* os) {
  *os << bad.file;
}

class BadScenarios : public ::testing::TestWithParam<BadScenario> {};

TEST_P(BadScenarios, InitFailsWithFileLineColumnAndWhat) {
  const BadScenario& bad = GetParam();
  const std::string path = scenario_path(std::string("tests/") + bad.file);
  SimLibrary lib(path);
  EXPECT_EQ(lib.api.nvmlInit_v2(), NVML_ERROR_UNKNOWN);
  const std::string error = lib.last_error();
  EXPECT_EQ(error.rfind(path + ":" + bad.where + ": ", 0), 0U) << error;
  EXPECT_NE(error.find(bad.says), std::string::npos) << error;
  unsigned count = 0;
  EXPECT_EQ(lib.api.nvmlDeviceGetCount_v2(&count), NVML_ERROR_UNINITIALIZED);
  char tiny[4];
  EXPECT_EQ(lib.api.gpuwatchSimLastError(tiny, sizeof tiny), NVML_ERROR_INSUFFICIENT_SIZE);
}

INSTANTIATE_TEST_SUITE_P(
    Sim, BadScenarios,
    ::testing::Values(BadScenario{"bad-unknown-key.yaml", "5:5",
                                  "unknown key 'cuont' in a device (did you mean 'count'?)"},
                      BadScenario{"bad-duration.yaml", "6:9", "expected a duration like 90s, 10m, 1h"},
                      BadScenario{"bad-model.yaml", "2:12", "unknown GPU model 'H300'"},
                      BadScenario{"bad-syntax.yaml", "4:1", "end of sequence flow not found"},
                      BadScenario{"bad-gpu-index.yaml", "4:20", "gpu index out of range"},
                      BadScenario{"bad-mig-profile.yaml", "3:47", "unknown MIG profile '9g.90gb'"},
                      BadScenario{"bad-fault-type.yaml", "4:12", "did you mean 'thermal_throttle'?"},
                      BadScenario{"bad-empty.yaml", "1:1", "the scenario is empty"},
                      BadScenario{"bad-top-level-key.yaml", "2:1",
                                  "unknown key 'device' in the scenario (did you mean 'devices'?)"},
                      BadScenario{"bad-oom-pid.yaml", "5:51", "no process with pid 99 on gpu 0"},
                      BadScenario{"bad-pcie-switch.yaml", "6:13", "GPU 1 is below two switches"},
                      BadScenario{"bad-pcie-rate.yaml", "4:41", "expected a rate like 50MiB/s"},
                      BadScenario{"bad-duplicate-key.yaml", "6:5", "duplicate key 'model', first at line 4"}),
    [](const auto& info) {
      std::string name = info.param.file;
      name = name.substr(4, name.size() - 9);
      for (auto& c : name) c = c == '-' ? '_' : c;
      return name;
    });

// Any prefix of a real scenario either loads or fails with a positioned error; nothing crashes.
TEST(Scenario, TruncatedScenariosFailCleanly) {
  const auto path =
      std::filesystem::temp_directory_path() / ("sim-truncated-" + std::to_string(::getpid()) + ".yaml");
  SimLibrary lib(path.string());
  const std::regex positioned("^" + std::regex_replace(path.string(), std::regex("[.]"), "[.]") +
                              ":[0-9]+:[0-9]+: .+");
  for (const char* name : {"healthy-8xh200.yaml", "incidents-8xh200.yaml", "mig-a100.yaml"}) {
    std::ifstream in(scenario_path(name));
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(text.empty());
    for (std::size_t cut = 0; cut < text.size(); cut += text.size() / 60 + 1) {
      std::ofstream(path) << text.substr(0, cut);
      const nvmlReturn_t r = lib.api.nvmlInit_v2();
      if (r == NVML_SUCCESS) {
        lib.api.nvmlShutdown();
        continue;
      }
      EXPECT_EQ(r, NVML_ERROR_UNKNOWN) << name << " cut at " << cut;
      EXPECT_TRUE(std::regex_match(lib.last_error(), positioned))
          << name << " cut at " << cut << ": " << lib.last_error();
    }
  }
  std::filesystem::remove(path);
}

// A process's user: one uid per name and one name per uid, so the passwd file the proc tree gets is a real
// one.
TEST(Scenario, AUserHasOneUid) {
  const auto path =
      std::filesystem::temp_directory_path() / ("sim-users-" + std::to_string(::getpid()) + ".yaml");
  SimLibrary lib(path.string());
  const std::string head = "devices: [{model: H200}]\nprocesses:\n";
  const std::pair<std::string, std::string> bad[] = {
      {"  - {pid: 1, user: alice, uid: 1000}\n  - {pid: 2, user: alice, uid: 1001}\n",
       "4:32: user alice has two uids, 1000 and 1001"},
      {"  - {pid: 1, user: alice, uid: 1000}\n  - {pid: 2, user: bob, uid: 1000}\n",
       "4:30: uid 1000 is both alice and bob"},
      {"  - {pid: 1, user: \"a:b\"}\n", "3:20: a user name must not be empty nor hold ':'"},
  };
  for (const auto& [processes, error] : bad) {
    std::ofstream(path) << head << processes;
    EXPECT_EQ(lib.api.nvmlInit_v2(), NVML_ERROR_UNKNOWN) << processes;
    EXPECT_NE(lib.last_error().find(error), std::string::npos) << lib.last_error();
  }
  std::ofstream(path) << head << "  - {pid: 1, user: alice}\n  - {pid: 2, user: bob, uid: 1001}\n"
                      << "  - {pid: 3, user: alice}\n  - {pid: 4}\n";
  ASSERT_EQ(lib.api.nvmlInit_v2(), NVML_SUCCESS) << lib.last_error();
  lib.api.nvmlShutdown();
  std::filesystem::remove(path);
}

TEST(Scenario, MissingFileIsAClearError) {
  SimLibrary lib(scenario_path("tests/does-not-exist.yaml"));
  EXPECT_EQ(lib.api.nvmlInit_v2(), NVML_ERROR_UNKNOWN);
  EXPECT_NE(lib.last_error().find("cannot open the scenario file"), std::string::npos) << lib.last_error();
}

TEST(Scenario, BadModeFromEnvironmentIsAnError) {
  SimLibrary lib(scenario_path("tests/basic.yaml"));
  ::setenv("GPUWATCH_SIM_MODE", "fast", 1);
  EXPECT_EQ(lib.api.nvmlInit_v2(), NVML_ERROR_UNKNOWN);
  EXPECT_NE(lib.last_error().find("GPUWATCH_SIM_MODE"), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch::sim::test
