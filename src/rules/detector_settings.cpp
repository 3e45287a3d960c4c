#include "rules/detector_settings.h"

#include <cmath>
#include <vector>

namespace gpuwatch::rules {
namespace {

double to_number(milliseconds v) {
  return static_cast<double>(v.count());
}
double to_number(double v) {
  return v;
}
double to_number(unsigned v) {
  return v;
}
void from_number(milliseconds& field, double v) {
  field = milliseconds(std::llround(v));
}
void from_number(double& field, double v) {
  field = v;
}
void from_number(unsigned& field, double v) {
  field = static_cast<unsigned>(std::llround(v));
}

template <typename Settings, std::size_t N>
void add(std::vector<Tunable>& out, std::string_view detector, Settings DetectorSettings::*group,
         const std::array<TunableField<Settings>, N>& fields) {
  for (const auto& f : fields) {
    const auto member = f.member;
    out.push_back({detector, f.name, f.option_key, f.unit, f.help, f.min, f.max,
                   [group, member](const DetectorSettings& s) {
                     return std::visit([&](auto m) { return to_number((s.*group).*m); }, member);
                   },
                   [group, member](DetectorSettings& s, double v) {
                     std::visit([&](auto m) { from_number((s.*group).*m, v); }, member);
                   }});
  }
}

std::vector<Tunable> all_tunables() {
  std::vector<Tunable> out;
  // The detector names of the detector table (detect/detector_set.cpp), in its order.
  add(out, "xid", &DetectorSettings::xid, kXidTunables);
  add(out, "gpu_lost", &DetectorSettings::lost, kLostTunables);
  add(out, "throttle", &DetectorSettings::throttle, kThrottleTunables);
  add(out, "ecc", &DetectorSettings::ecc, kEccTunables);
  add(out, "pcie", &DetectorSettings::pcie, kPcieTunables);
  add(out, "oom_forecast", &DetectorSettings::oom_forecast, kOomForecastTunables);
  add(out, "probable_oom", &DetectorSettings::probable_oom, kProbableOomTunables);
  add(out, "memory_leak", &DetectorSettings::leak, kLeakTunables);
  add(out, "idle_waste", &DetectorSettings::idle, kIdleTunables);
  add(out, "noisy_neighbour", &DetectorSettings::noisy_neighbour, kNoisyNeighbourTunables);
  add(out, "node_contention", &DetectorSettings::node_contention, kNodeContentionTunables);
  add(out, "pcie_contention", &DetectorSettings::pcie_contention, kPcieContentionTunables);
  add(out, "fabric", &DetectorSettings::fabric, kFabricTunables);
  return out;
}

}  // namespace

std::string Tunable::key() const {
  if (!option_key.empty()) return std::string(option_key);
  return "detect." + std::string(detector) + "." + std::string(name);
}

std::span<const Tunable> detector_tunables() {
  static const std::vector<Tunable> kTunables = all_tunables();
  return kTunables;
}

}  // namespace gpuwatch::rules
