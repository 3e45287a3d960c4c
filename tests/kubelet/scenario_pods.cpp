#include "scenario_pods.h"

#include <dlfcn.h>

#include <sstream>
#include <stdexcept>

namespace gpuwatch::test {

std::vector<kubelet::DeviceAllocation> scenario_pods(const std::string& sim_library,
                                                     const std::string& scenario,
                                                     const std::string& proc_dir) {
  ::setenv("GPUWATCH_SIM_SCENARIO", scenario.c_str(), 1);
  void* lib = ::dlopen(sim_library.c_str(), RTLD_NOW);
  if (!lib) throw std::runtime_error(::dlerror());
  auto init = reinterpret_cast<int (*)()>(::dlsym(lib, "nvmlInit_v2"));
  auto shutdown = reinterpret_cast<int (*)()>(::dlsym(lib, "nvmlShutdown"));
  auto pods = reinterpret_cast<int (*)(char*, unsigned)>(::dlsym(lib, "gpuwatchSimPodResources"));
  auto tree = reinterpret_cast<int (*)(const char*)>(::dlsym(lib, "gpuwatchSimWriteProcTree"));
  if (!init || !shutdown || !pods || !tree || init() != 0)
    throw std::runtime_error("the simulator did not start on " + scenario);
  std::vector<char> buf(1 << 16);
  const int pods_rc = pods(buf.data(), static_cast<unsigned>(buf.size()));
  const int tree_rc = proc_dir.empty() ? 0 : tree(proc_dir.c_str());
  shutdown();
  ::unsetenv("GPUWATCH_SIM_SCENARIO");
  if (pods_rc != 0 || tree_rc != 0) throw std::runtime_error("the simulator's pods or /proc tree failed");
  std::vector<kubelet::DeviceAllocation> out;
  std::istringstream lines(buf.data());
  for (std::string line; std::getline(lines, line);) {
    std::istringstream f(line);
    kubelet::DeviceAllocation a;
    std::getline(f, a.namespace_name, '\t');
    std::getline(f, a.pod, '\t');
    std::getline(f, a.container, '\t');
    std::getline(f, a.resource, '\t');
    std::getline(f, a.device_id, '\t');
    out.push_back(a);
  }
  return out;
}

}  // namespace gpuwatch::test
