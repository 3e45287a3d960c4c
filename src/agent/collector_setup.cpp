#include "agent/collector_setup.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace gpuwatch {

std::string prepare_simulator(AgentOptions& options) {
  if (options.sim_scenario.empty()) return {};
  std::error_code ec;
  if (!std::filesystem::exists(options.sim_scenario, ec))
    return "scenario file not found: " + options.sim_scenario;
  // The simulator reads its scenario at nvmlInit; the environment is how any NVML client hands it over.
  ::setenv("GPUWATCH_SIM_SCENARIO", options.sim_scenario.c_str(), 1);
  return locate_simulator(options);
}

std::string locate_simulator(AgentOptions& options) {
  if (options.sim_scenario.empty() || !options.nvml_library.empty()) return {};
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "cannot locate the simulator: pass --nvml-lib build/sim-lib/libnvidia-ml.so.1";
  // The simulator next to gpuwatch: sim-lib/ beside the binary in a build tree, and the installed tree's own
  // folder (PREFIX/lib/gpuwatch/sim), never the library path, where it would shadow the driver's NVML.
  const std::filesystem::path candidates[] = {
      exe.parent_path() / "sim-lib" / "libnvidia-ml.so.1",
      (exe.parent_path() / GPUWATCH_SIM_FROM_BINDIR / "libnvidia-ml.so.1").lexically_normal(),
  };
  for (const auto& sim : candidates) {
    if (std::filesystem::exists(sim, ec)) {
      options.nvml_library = sim.string();
      return {};
    }
  }
  return "the simulator is not next to the binary (" + candidates[0].string() + " or " +
         candidates[1].string() + "): pass --nvml-lib";
}

CollectorOptions collector_options(const AgentOptions& o, const SnapshotPtr& replaced) {
  CollectorOptions c;
  c.nvml_library = o.nvml_library;
  c.interval = o.interval;
  c.deadline = effective_deadline(o);
  c.proc_root = o.proc_root;
  c.hostname = o.hostname;
  c.host = {o.kmsg, o.sysfs_root, o.proc_root, o.pod_resources_socket, o.hpc_job_mapping_dir, ""};
  if (replaced) c.resume_host = replaced->host;
  return c;
}

}  // namespace gpuwatch
