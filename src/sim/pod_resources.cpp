// gpuwatchSimPodResources: the scenario's pods listed at the current scenario time (each between its start
// and stop) as a kubelet's PodResources List would give them, one line per
// allocated device, "namespace<TAB>pod<TAB>container<TAB>resource<TAB>device id\n", with the simulated GPUs'
// and MIG instances' UUIDs as the device plugin reports them. A fake kubelet in the tests serves these over
// the real gRPC protocol, so the agent names the scenario's pods the way it would on a cluster.
#include "sim/api_support.h"
#include "sim/identity.h"

using namespace gpuwatch::sim;

extern "C" int gpuwatchSimPodResources(char* buf, unsigned len) {
  return guarded([&]() -> nvmlReturn_t {
    double t = 0;
    const auto node = sim().node_at(t);
    if (!node) return NVML_ERROR_UNINITIALIZED;
    const Scenario& sc = node->scenario;
    std::string text;
    for (const auto& pod : sc.pods) {
      if (!pod.active(t)) continue;
      for (const auto& c : pod.containers) {
        for (const auto& d : c.devices) {
          std::string resource = "nvidia.com/gpu";
          std::string id = gpu_uuid(sc.node.seed, d.gpu);
          if (d.mig >= 0) {
            const MigInstance& inst = sc.devices[d.gpu].mig[static_cast<std::size_t>(d.mig)];
            resource = "nvidia.com/mig-" + std::string(inst.profile->name);
            id = mig_uuid(sc.node.seed, d.gpu, static_cast<unsigned>(d.mig));
          }
          text += pod.namespace_name + "\t" + pod.name + "\t" + c.name + "\t" + resource + "\t" + id + "\n";
        }
      }
    }
    return copy_string(text, buf, len);
  });
}
