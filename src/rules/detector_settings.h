// The values users set for the detectors' tunables (detect.<detector>.<tunable>): what the agent's options
// hold and each detector's settings are read from. A tunable not set keeps its settings struct's default,
// so the defaults live only in the structs. The health verdict reads the rule book's settings (ECC,
// throttle, PCIe) from here too, so it judges with the same numbers as those detectors.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "rules/ecc_settings.h"
#include "rules/pcie_settings.h"
#include "rules/throttle_settings.h"
#include "rules/tunable.h"

namespace gpuwatch::rules {

class DetectorSettings {
 public:
  // Sets a tunable, as a number in its unit's base (milliseconds, bytes, ...).
  void set(std::string_view detector, std::string_view tunable, double value);
  // The value set for a tunable, or nullopt where it keeps its default.
  std::optional<double> find(std::string_view detector, std::string_view tunable) const;
  double value(const Tunable& t) const { return find(t.detector, t.name).value_or(t.default_value); }

  // A detector's settings: its struct's defaults, with the values set for its tunables.
  template <typename Settings, std::size_t N>
  Settings read(const Tunables<Settings, N>& tunables) const {
    Settings s{};
    for (const auto& f : tunables.fields)
      if (const auto v = find(tunables.detector, f.name))
        std::visit([&](auto m) { from_number(s.*m, *v); }, f.member);
    return s;
  }

  EccSettings ecc() const { return read(kEccTunables); }
  ThrottleSettings throttle() const { return read(kThrottleTunables); }
  PcieSettings pcie() const { return read(kPcieTunables); }

 private:
  std::map<std::string, double, std::less<>> values_;  // by "<detector>.<tunable>"
};

}  // namespace gpuwatch::rules
