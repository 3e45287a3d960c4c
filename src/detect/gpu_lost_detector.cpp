// A GPU that fell off the bus (NVML answers GPU_IS_LOST, or the kernel log says so even before NVML does),
// and a GPU whose driver calls hang (the collector marks it stale after missing its read deadline).
//   GpuLost   page  lost; held until the driver is loaded again (a node reboot or driver reload)
//   GpuStale  page  reads missing their deadline for stale_for
#include <fmt/format.h>

#include <set>

#include "detect/detector_table.h"
#include "detect/device_facts.h"

namespace gpuwatch::detect {
namespace {

// Its settings, each an option detect.gpu_lost.<name> (docs/configuration.md).
struct LostSettings {
  milliseconds stale_for = 30s;
};

constexpr Tunables<LostSettings, 1> kLostTunables = {
    "gpu_lost",
    {{
        {"stale_for", &LostSettings::stale_for, TunableUnit::kDuration,
         "A hung driver call must last this long before it alerts", 0},
    }}};

class GpuLostDetector final : public Detector {
 public:
  explicit GpuLostDetector(LostSettings s) : s_(s) {}

  void evaluate(const DetectionInput& in, std::vector<Condition>& out) override {
    for (const auto& ev : in.kernel_events) {
      if (ev.kind == kernel::KernelEventKind::kDriverLoaded) kernel_says_lost_.clear();
      if (ev.kind == kernel::KernelEventKind::kFallenOffBus ||
          (ev.kind == kernel::KernelEventKind::kXid && ev.xid == 79))
        if (const DeviceSnapshot* d = device_at_bus(in.snapshot, ev.pci_bus_id))
          kernel_says_lost_.insert(d->identity.uuid);
    }
    for (const auto& d : in.snapshot.devices) {
      if (d.identity.is_mig_instance) continue;  // the GPU's own alert covers its instances
      const bool nvml_lost = d.state == DeviceState::kLost;
      if (nvml_lost || kernel_says_lost_.contains(d.identity.uuid)) {
        Condition c;
        c.alertname = "GpuLost";
        c.severity = Severity::kPage;
        c.labels = device_labels(d);
        c.summary = fmt::format("{} fell off the bus", gpu_name(d));
        // A GPU lost before its first reading has no bus id or UUID to show.
        std::string where;
        for (const std::string& part : {d.identity.pci_bus_id, d.identity.uuid}) {
          if (!part.empty()) where += (where.empty() ? " (" : ", ") + part;
        }
        if (!where.empty()) where += ")";
        c.description = fmt::format("{}{} {}; every job on it has failed", gpu_name(d), where,
                                    nvml_lost ? "answers GPU_IS_LOST to every NVML call"
                                              : "is reported fallen off the bus by the kernel log");
        c.action =
            "drain the node and reboot it; if the GPU does not come back, reseat it or contact support";
        out.push_back(std::move(c));
      } else if (d.state == DeviceState::kStale) {
        Condition c;
        c.alertname = "GpuStale";
        c.severity = Severity::kPage;
        c.labels = device_labels(d);
        c.summary = fmt::format("driver calls on {} are not returning", gpu_name(d));
        c.description = fmt::format("{} ({}) missed its read deadline; its last values are {:.0f} s old",
                                    gpu_name(d), d.identity.pci_bus_id,
                                    static_cast<double>(in.snapshot.timestamp_ms - d.last_read_ms) / 1000.0);
        c.action =
            "check the kernel log for XIDs and hung tasks; drain the GPU and reset it if calls stay hung";
        c.for_duration = s_.stale_for;
        out.push_back(std::move(c));
      }
    }
  }

 private:
  LostSettings s_;
  std::set<std::string> kernel_says_lost_;  // GPU uuids
};

}  // namespace

DetectorInfo gpu_lost_detector() {
  return detector_row<GpuLostDetector, kLostTunables>("GpuLost, GpuStale");
}

}  // namespace gpuwatch::detect
