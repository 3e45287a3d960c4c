// Loads libnvml-sim the way an NVML client does (dlopen + dlsym of every symbol in the NVML table) with a
// scenario in lockstep mode, so tests exercise the real C ABI and move scenario time themselves.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sources/nvml/nvml_symbols.h"

namespace gpuwatch::sim::test {

struct NvmlApi {
#define GPUWATCH_TEST_FIELD(name, required, ret, params) ret(*name) params = nullptr;
  GPUWATCH_NVML_SYMBOLS(GPUWATCH_TEST_FIELD)
#undef GPUWATCH_TEST_FIELD
  int (*gpuwatchSimGetTime)(double*) = nullptr;
  int (*gpuwatchSimSetTime)(double) = nullptr;
  int (*gpuwatchSimIsLockstep)(int*) = nullptr;
  int (*gpuwatchSimParkedCalls)(unsigned*, unsigned*) = nullptr;
  int (*gpuwatchSimLastError)(char*, unsigned) = nullptr;
  int (*gpuwatchSimWriteProcTree)(const char*) = nullptr;
  int (*gpuwatchSimWriteSysfsTree)(const char*) = nullptr;
  int (*gpuwatchSimGetHostname)(char*, unsigned) = nullptr;
  int (*gpuwatchSimWriteKernelLog)(const char*) = nullptr;
  int (*gpuwatchSimPodResources)(char*, unsigned) = nullptr;
};

inline std::string library_path() {
  return std::string(GPUWATCH_BINARY_DIR) + "/sim-lib/libnvidia-ml.so.1";
}
// A file's whole contents ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string scenario_path(const std::string& name) {
  return std::string(GPUWATCH_SOURCE_DIR) + "/scenarios/" + name;
}

class SimLibrary {
 public:
  // Loads `library` (a private copy when `copy_to` is given, so two instances live in one process).
  explicit SimLibrary(const std::string& scenario, const std::string& copy_to = "") {
    ::setenv("GPUWATCH_SIM_MODE", "lockstep", 1);
    // Lockstep never runs past the wall clock (when gpuwatch's clock drives it): start a week back, unless
    // the test chose its epoch.
    ::setenv("GPUWATCH_SIM_EPOCH", std::to_string(std::time(nullptr) - 7 * 86400).c_str(), 0);
    if (scenario.empty())
      ::unsetenv("GPUWATCH_SIM_SCENARIO");
    else
      ::setenv("GPUWATCH_SIM_SCENARIO", scenario.c_str(), 1);
    std::string path = library_path();
    if (!copy_to.empty()) {
      std::filesystem::copy_file(std::filesystem::canonical(path), copy_to,
                                 std::filesystem::copy_options::overwrite_existing);
      path = copy_to;
    }
    handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) throw std::runtime_error(::dlerror());
#define GPUWATCH_TEST_RESOLVE(name, required, ret, params) resolve(api.name, #name);
    GPUWATCH_NVML_SYMBOLS(GPUWATCH_TEST_RESOLVE)
#undef GPUWATCH_TEST_RESOLVE
    resolve(api.gpuwatchSimGetTime, "gpuwatchSimGetTime");
    resolve(api.gpuwatchSimSetTime, "gpuwatchSimSetTime");
    resolve(api.gpuwatchSimIsLockstep, "gpuwatchSimIsLockstep");
    resolve(api.gpuwatchSimParkedCalls, "gpuwatchSimParkedCalls");
    resolve(api.gpuwatchSimLastError, "gpuwatchSimLastError");
    resolve(api.gpuwatchSimWriteProcTree, "gpuwatchSimWriteProcTree");
    resolve(api.gpuwatchSimWriteSysfsTree, "gpuwatchSimWriteSysfsTree");
    resolve(api.gpuwatchSimGetHostname, "gpuwatchSimGetHostname");
    resolve(api.gpuwatchSimWriteKernelLog, "gpuwatchSimWriteKernelLog");
    resolve(api.gpuwatchSimPodResources, "gpuwatchSimPodResources");
  }
  ~SimLibrary() {
    // Balance every init: the library may stay loaded after dlclose (and keep its state) in this process.
    while (api.nvmlShutdown && api.nvmlShutdown() == NVML_SUCCESS) {
    }
    if (handle_) ::dlclose(handle_);
  }
  SimLibrary(const SimLibrary&) = delete;
  SimLibrary& operator=(const SimLibrary&) = delete;

  // nvmlInit_v2 and remember the scenario's start time.
  void init() {
    ASSERT_EQ(api.nvmlInit_v2(), NVML_SUCCESS) << last_error();
    ASSERT_EQ(api.gpuwatchSimGetTime(&start_), NVML_SUCCESS);
  }
  // Moves scenario time to `seconds` after the start.
  void at(double seconds) {
    ASSERT_EQ(api.gpuwatchSimSetTime(start_ + seconds), NVML_SUCCESS);
  }
  double start() const {
    return start_;
  }
  nvmlDevice_t gpu(unsigned index) {
    nvmlDevice_t d = nullptr;
    api.nvmlDeviceGetHandleByIndex_v2(index, &d);
    return d;
  }
  std::string last_error() {
    char buf[1024] = {};
    api.gpuwatchSimLastError(buf, sizeof buf);
    return buf;
  }

  NvmlApi api;

 private:
  template <typename F>
  void resolve(F& slot, const char* name) {
    slot = reinterpret_cast<F>(::dlsym(handle_, name));
    if (!slot) throw std::runtime_error(std::string("missing symbol ") + name);
  }
  void* handle_ = nullptr;
  double start_ = 0;
};

}  // namespace gpuwatch::sim::test
