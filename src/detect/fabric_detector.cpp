// NVLink fabric registration on NVSwitch systems (HGX Hopper and later): a GPU the fabric manager has not
// registered cannot use NVLink, so multi-GPU jobs on it fail or fall back to PCIe.
//   GpuFabricRegistrationFailed  page    registration completed with an error
//   GpuFabricNotRegistered       ticket  registration not started or still in progress, for registering_for
// GPUs without a fabric (NVML says NOT_SUPPORTED) have no fabric state and never alert.
#include <fmt/format.h>

#include "detect/detector_table.h"
#include "detect/device_facts.h"

namespace gpuwatch::detect {
namespace {

// Its settings, each an option detect.fabric.<name> (docs/configuration.md).
struct FabricSettings {
  milliseconds registering_for = 5min;
};

constexpr Tunables<FabricSettings, 1> kFabricTunables = {
    "fabric",
    {{
        {"registering_for", &FabricSettings::registering_for, TunableUnit::kDuration,
         "How long a GPU may stay unregistered with the fabric manager (at boot it registers within a "
         "minute) before it alerts",
         0},
    }}};

constexpr double kRegistered = 3;  // NVML_GPU_FABRIC_STATE_COMPLETED

class FabricDetector final : public Detector {
 public:
  explicit FabricDetector(FabricSettings s) : s_(s) {}

  void evaluate(const DetectionInput& in, std::vector<Condition>& out) override {
    for (const auto& d : in.snapshot.devices) {
      if (d.state != DeviceState::kOk || d.identity.is_mig_instance) continue;
      if (value_or(d, Metric::kFabricRegistrationFailed, 0) > 0) {
        out.push_back(
            {"GpuFabricRegistrationFailed",
             Severity::kPage,
             device_labels(d),
             fmt::format("NVLink fabric registration failed on {}", gpu_name(d)),
             fmt::format("{} ({}) completed its fabric registration with an error; it cannot use NVLink",
                         gpu_name(d), d.identity.pci_bus_id),
             "check the fabric manager (systemctl status nvidia-fabricmanager, its log); drain the GPU "
             "and reset it, or reboot the node",
             {}});
      } else if (const double state = value_or(d, Metric::kFabricState, kRegistered); state < kRegistered) {
        out.push_back(
            {"GpuFabricNotRegistered", Severity::kTicket, device_labels(d),
             fmt::format("{} is not registered with the NVLink fabric", gpu_name(d)),
             fmt::format("fabric state {:.0f} ({})", state, state < 2 ? "not started" : "in progress"),
             "check that nvidia-fabricmanager runs and matches the driver version; keep multi-GPU "
             "jobs off the GPU until it registers",
             s_.registering_for});
      }
    }
  }

 private:
  FabricSettings s_;
};

}  // namespace

DetectorInfo fabric_detector() {
  return detector_row<FabricDetector, kFabricTunables>("GpuFabricRegistrationFailed, GpuFabricNotRegistered");
}

}  // namespace gpuwatch::detect
