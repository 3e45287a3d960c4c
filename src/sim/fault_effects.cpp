#include "sim/fault_effects.h"

#include <algorithm>
#include <cmath>

#include "sources/nvml/nvml_abi.h"

namespace gpuwatch::sim {
namespace {

// How many whole events a rate has produced by t.
unsigned long long counted(const Fault& f, double t) {
  if (t < f.at) return 0;
  return static_cast<unsigned long long>(std::floor(f.rate * (std::min(t, f.end()) - f.at)));
}

}  // namespace

FaultEffects::FaultEffects(const Scenario& scenario) : scenario_(scenario) {
  for (const auto& f : scenario.faults) {
    if (f.gpu < 0) continue;
    const auto gpu = static_cast<unsigned>(f.gpu);
    switch (f.kind) {
      case FaultKind::kXid:
        events_.push_back({f.at, gpu, nvmlEventTypeXidCriticalError, f.code});
        break;
      case FaultKind::kFallOffBus:
        events_.push_back({f.at, gpu, nvmlEventTypeXidCriticalError, 79});
        break;
      case FaultKind::kEccDbe:
        events_.push_back({f.at, gpu, nvmlEventTypeDoubleBitEccError, 0});
        events_.push_back({f.at, gpu, nvmlEventTypeXidCriticalError, 48});
        break;
      case FaultKind::kMigReconfigure:
        events_.push_back({f.at, gpu, nvmlEventMigConfigChange, 0});
        break;
      case FaultKind::kRowRemap:
        if (f.failure)
          events_.push_back({f.at, gpu, nvmlEventTypeXidCriticalError, 64});
        else if (f.pending)
          events_.push_back({f.at, gpu, nvmlEventTypeXidCriticalError, 63});
        break;
      default:
        break;
    }
  }
  std::stable_sort(events_.begin(), events_.end(),
                   [](const SimEvent& a, const SimEvent& b) { return a.t < b.t; });
}

template <typename F>
void FaultEffects::each(unsigned gpu, FaultKind kind, double t, F&& f) const {
  for (const auto& fault : scenario_.faults)
    if (fault.kind == kind && fault.gpu == static_cast<int>(gpu) && t >= fault.at) f(fault);
}

bool FaultEffects::lost(unsigned gpu, double t) const {
  bool lost = false;
  each(gpu, FaultKind::kFallOffBus, t, [&](const Fault&) { lost = true; });
  return lost;
}

bool FaultEffects::thermal_throttle(unsigned gpu, double t) const {
  bool on = false;
  each(gpu, FaultKind::kThermalThrottle, t, [&](const Fault& f) { on = on || f.active(t); });
  return on;
}

std::optional<double> FaultEffects::power_cap_w(unsigned gpu, double t) const {
  std::optional<double> cap;
  each(gpu, FaultKind::kPowerCap, t, [&](const Fault& f) {
    if (f.active(t) && f.limit_w > 0) cap = std::min(cap.value_or(f.limit_w), f.limit_w);
  });
  return cap;
}

bool FaultEffects::power_brake(unsigned gpu, double t) const {
  bool on = false;
  each(gpu, FaultKind::kPowerCap, t, [&](const Fault& f) { on = on || (f.active(t) && f.brake); });
  return on;
}

unsigned long long FaultEffects::ecc_corrected(unsigned gpu, double t) const {
  unsigned long long n = 0;
  each(gpu, FaultKind::kEccSbe, t, [&](const Fault& f) { n += counted(f, t); });
  return n;
}

unsigned long long FaultEffects::ecc_uncorrected(unsigned gpu, double t) const {
  unsigned long long n = 0;
  each(gpu, FaultKind::kEccDbe, t, [&](const Fault& f) { n += f.count; });
  return n;
}

RemapState FaultEffects::remap(unsigned gpu, double t) const {
  RemapState r;
  each(gpu, FaultKind::kRowRemap, t, [&](const Fault& f) {
    r.correctable += f.correctable;
    r.uncorrectable += f.uncorrectable;
    r.pending = r.pending || f.pending;
    r.failure = r.failure || f.failure;
  });
  // A double-bit error leaves a row remap pending until the next GPU reset.
  each(gpu, FaultKind::kEccDbe, t, [&](const Fault& f) {
    r.uncorrectable += f.count;
    r.pending = true;
  });
  return r;
}

unsigned long long FaultEffects::pcie_replays(unsigned gpu, double t) const {
  unsigned long long n = 0;
  each(gpu, FaultKind::kPcieReplays, t, [&](const Fault& f) { n += counted(f, t); });
  return n;
}

unsigned FaultEffects::link_gen(unsigned gpu, double t, unsigned normal) const {
  unsigned gen = normal;
  each(gpu, FaultKind::kLinkDowntrain, t, [&](const Fault& f) {
    if (f.active(t) && f.gen > 0) gen = std::min(gen, f.gen);
  });
  return gen;
}

unsigned FaultEffects::link_width(unsigned gpu, double t, unsigned normal) const {
  unsigned width = normal;
  each(gpu, FaultKind::kLinkDowntrain, t, [&](const Fault& f) {
    if (f.active(t) && f.width > 0) width = std::min(width, f.width);
  });
  return width;
}

std::optional<nvmlReturn_t> FaultEffects::driver_down(double t) const {
  std::optional<nvmlReturn_t> answer;
  for (const auto& f : scenario_.faults) {
    if (f.kind == FaultKind::kDriverReload && f.active(t)) answer = NVML_ERROR_LIB_RM_VERSION_MISMATCH;
    if (f.kind == FaultKind::kDriverUnload && f.active(t) && !answer) answer = NVML_ERROR_DRIVER_NOT_LOADED;
  }
  return answer;
}

unsigned FaultEffects::driver_epoch(double t) const {
  unsigned n = 0;
  for (const auto& f : scenario_.faults)
    n += (f.kind == FaultKind::kDriverReload || f.kind == FaultKind::kDriverUnload) && t >= f.at ? 1 : 0;
  return n;
}

std::string FaultEffects::driver_version(double t) const {
  const Fault* latest = nullptr;
  for (const auto& f : scenario_.faults) {
    const bool reload = f.kind == FaultKind::kDriverReload || f.kind == FaultKind::kDriverUnload;
    if (reload && !f.new_driver_version.empty() && t >= f.end() && (!latest || f.end() >= latest->end()))
      latest = &f;
  }
  return latest ? latest->new_driver_version : scenario_.node.driver_version;
}

std::string FaultEffects::nvml_version(double t) const {
  const std::string driver = driver_version(t);
  if (driver == scenario_.node.driver_version) return scenario_.node.nvml_version;
  // NVML's version is the CUDA major version followed by the driver's.
  const std::string& base = scenario_.node.nvml_version;
  return base.substr(0, base.find('.')) + "." + driver;
}

unsigned FaultEffects::mig_epoch(unsigned gpu, double t) const {
  unsigned n = 0;
  each(gpu, FaultKind::kMigReconfigure, t, [&](const Fault&) { ++n; });
  return n;
}

const std::vector<MigInstance>& FaultEffects::mig_instances(unsigned gpu, double t) const {
  const Fault* latest = nullptr;
  each(gpu, FaultKind::kMigReconfigure, t, [&](const Fault& f) {
    if (!latest || f.at >= latest->at) latest = &f;
  });
  return latest ? latest->instances : scenario_.devices[gpu].mig;
}

std::optional<double> FaultEffects::hang_end(int gpu, double t) const {
  std::optional<double> end;
  for (const auto& f : scenario_.faults) {
    const bool applies =
        f.kind == FaultKind::kDriverHang || (f.kind == FaultKind::kHungCall && gpu >= 0 && f.gpu == gpu);
    if (applies && f.active(t)) end = std::max(end.value_or(f.end()), f.end());
  }
  return end;
}

}  // namespace gpuwatch::sim
