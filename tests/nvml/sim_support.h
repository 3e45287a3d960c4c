// Test support for code that reads NVML: a scenario for libnvml-sim selected through the environment (each
// test binary's test cases run in their own process under ctest), and direct access to the simulator's own
// NVML functions, so a test can ask the simulator what a value is at the same scenario time.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "core/snapshot.h"
#include "sources/nvml/nvml_library.h"

namespace gpuwatch::test {

inline std::string sim_library_path() {
  return std::string(GPUWATCH_BINARY_DIR) + "/src/sim/libnvml-sim.so";
}
inline std::string scenario_path(const std::string& name) {
  return std::string(GPUWATCH_SOURCE_DIR) + "/scenarios/" + name;
}

// A scratch directory removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = std::filesystem::temp_directory_path() / "gpuwatch-test-XXXXXX";
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct ScenarioFile {
  std::string path;
};

inline constexpr long kLockstepLeadSeconds = 7 * 86400;

// Selects a scenario (YAML text, or a file) for the simulator, in lockstep mode, for the test's lifetime.
class SimScenario {
 public:
  explicit SimScenario(const std::string& yaml) : path_(dir_.path() + "/scenario.yaml") {
    std::ofstream(path_) << yaml;
    select();
  }
  explicit SimScenario(ScenarioFile file) : path_(std::move(file.path)) { select(); }
  ~SimScenario() {
    unsetenv("GPUWATCH_SIM_SCENARIO");
    unsetenv("GPUWATCH_SIM_MODE");
    unsetenv("GPUWATCH_SIM_EPOCH");
  }
  SimScenario(const SimScenario&) = delete;
  SimScenario& operator=(const SimScenario&) = delete;
  const std::string& path() const { return path_; }

 private:
  void select() const {
    setenv("GPUWATCH_SIM_SCENARIO", path_.c_str(), 1);
    setenv("GPUWATCH_SIM_MODE", "lockstep", 1);
    // Lockstep never runs past the wall clock: a week back leaves every test's scenario room to run at full
    // speed.
    setenv("GPUWATCH_SIM_EPOCH", std::to_string(std::time(nullptr) - kLockstepLeadSeconds).c_str(), 1);
  }
  TempDir dir_;
  std::string path_;
};

// The simulator's NVML functions, called directly, and its lockstep clock. Holds one NVML initialisation.
class Sim {
 public:
  explicit Sim(const std::string& path = sim_library_path()) {
    auto opened = NvmlLibrary::open(path);
    lib_ = opened.library;
    if (!lib_) throw std::runtime_error(opened.error);
    if (lib_->fn().nvmlInit_v2() != NVML_SUCCESS)
      throw std::runtime_error("the simulator did not initialise");
    get_ = reinterpret_cast<int (*)(double*)>(lib_->optional_symbol("gpuwatchSimGetTime"));
    set_ = reinterpret_cast<int (*)(double)>(lib_->optional_symbol("gpuwatchSimSetTime"));
    start_ = unix_now();
  }
  ~Sim() { lib_->fn().nvmlShutdown(); }
  Sim(const Sim&) = delete;
  Sim& operator=(const Sim&) = delete;

  const std::shared_ptr<NvmlLibrary>& library() const { return lib_; }
  const NvmlFunctions& fn() const { return lib_->fn(); }
  double unix_now() const {
    double t = 0;
    get_(&t);
    return t;
  }
  // Scenario time (seconds since the scenario started) -> milliseconds on the agent's clock.
  std::int64_t ms_at(double seconds) const { return std::llround((start_ + seconds) * 1000.0); }
  void advance_to(double seconds) { ASSERT_EQ(set_(start_ + seconds), 0) << "cannot move scenario time"; }
  nvmlDevice_t gpu(unsigned index) const {
    nvmlDevice_t d = nullptr;
    fn().nvmlDeviceGetHandleByIndex_v2(index, &d);
    return d;
  }
  // Lays out the scenario's /proc tree (comm, cmdline, cgroup) under dir.
  void write_proc_tree(const std::string& dir) const {
    auto write = reinterpret_cast<int (*)(const char*)>(lib_->optional_symbol("gpuwatchSimWriteProcTree"));
    ASSERT_NE(write, nullptr);
    ASSERT_EQ(write(dir.c_str()), 0);
  }
  // Lays out the scenario's /sys PCI tree (GPUs, switches, links) under dir.
  void write_sysfs_tree(const std::string& dir) const {
    auto write = reinterpret_cast<int (*)(const char*)>(lib_->optional_symbol("gpuwatchSimWriteSysfsTree"));
    ASSERT_NE(write, nullptr);
    ASSERT_EQ(write(dir.c_str()), 0);
  }

 private:
  std::shared_ptr<NvmlLibrary> lib_;
  int (*get_)(double*) = nullptr;
  int (*set_)(double) = nullptr;
  double start_ = 0;
};

// The value of a device sample; fails the test (and returns -1) when the sample is missing.
inline double value_of(const DeviceSnapshot& d, Metric m, std::string_view l0 = {},
                       std::string_view l1 = {}) {
  const Sample* s = d.find(m, l0, l1);
  EXPECT_NE(s, nullptr) << metric_def(m).name << "{" << l0 << "} missing on GPU " << d.identity.index << " ("
                        << d.identity.uuid << ")";
  return s != nullptr ? s->value : -1;
}

}  // namespace gpuwatch::test
