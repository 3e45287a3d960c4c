// What the scenario's faults do to a GPU at scenario time t. Counters are closed-form functions of t, so
// every reader at the same t sees the same value.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/scenario.h"
#include "sources/nvml/nvml_abi.h"

namespace gpuwatch::sim {

struct RemapState {
  unsigned correctable = 0;
  unsigned uncorrectable = 0;
  bool pending = false;
  bool failure = false;
};

// An event NVML would deliver through nvmlEventSetWait_v2.
struct SimEvent {
  double t = 0;
  unsigned gpu = 0;
  unsigned long long type = 0;
  unsigned long long data = 0;  // XID code for XID events
};

class FaultEffects {
 public:
  explicit FaultEffects(const Scenario& scenario);

  bool lost(unsigned gpu, double t) const;
  bool thermal_throttle(unsigned gpu, double t) const;
  std::optional<double> power_cap_w(unsigned gpu, double t) const;
  bool power_brake(unsigned gpu, double t) const;
  unsigned long long ecc_corrected(unsigned gpu, double t) const;
  unsigned long long ecc_uncorrected(unsigned gpu, double t) const;
  RemapState remap(unsigned gpu, double t) const;
  unsigned long long pcie_replays(unsigned gpu, double t) const;
  unsigned link_gen(unsigned gpu, double t, unsigned normal) const;
  unsigned link_width(unsigned gpu, double t, unsigned normal) const;
  // End of the hang a call on `gpu` made at t runs into (driver_hang for every call; hung_call per GPU);
  // gpu < 0 for calls that touch no device.
  std::optional<double> hang_end(int gpu, double t) const;
  // NVML's answer to every call but init/shutdown/error strings while a driver_reload
  // (LIB_RM_VERSION_MISMATCH) or driver_unload (DRIVER_NOT_LOADED) is under way at t; nullopt when the driver
  // is there.
  std::optional<nvmlReturn_t> driver_down(double t) const;
  // How many driver reloads/unloads have begun by t: handles carry it, so those from before a reload are
  // stale after it.
  unsigned driver_epoch(double t) const;
  // The versions the driver reports at t (a finished reload may have brought a new one).
  std::string driver_version(double t) const;
  std::string nvml_version(double t) const;
  // How many MIG reconfigurations of the GPU happened by t, and its MIG instances at t.
  unsigned mig_epoch(unsigned gpu, double t) const;
  const std::vector<MigInstance>& mig_instances(unsigned gpu, double t) const;
  // Every event of the scenario, sorted by time.
  const std::vector<SimEvent>& events() const { return events_; }

 private:
  template <typename F>
  void each(unsigned gpu, FaultKind kind, double t, F&& f) const;
  const Scenario& scenario_;
  std::vector<SimEvent> events_;
};

}  // namespace gpuwatch::sim
