// Hand-made snapshots for detector unit tests: a healthy busy H200 whose values a test changes, a detector of
// the table built with tuned settings, and a helper that runs a detector over a series of snapshots and
// returns the conditions of the last one.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/snapshot.h"
#include "detect/detector.h"
#include "detect/detector_table.h"

namespace gpuwatch::detect::test {

constexpr double kGiB = 1024.0 * 1024 * 1024;

class Gpu {
 public:
  explicit Gpu(unsigned index) {
    d_.identity.index = index;
    d_.identity.uuid = "GPU-0000000" + std::to_string(index);
    char bus[16];
    std::snprintf(bus, sizeof bus, "0000:%02x:00.0", 0x18 + index);
    d_.identity.pci_bus_id = bus;
    d_.identity.name = "NVIDIA H200";
    set(Metric::kMemoryTotal, 141 * kGiB).set(Metric::kMemoryUsed, 90 * kGiB).set(Metric::kUtilization, 0.85);
    set(Metric::kTemperature, 62).set(Metric::kTemperatureThreshold, 89, "slowdown");
    set(Metric::kPower, 620).set(Metric::kPowerLimit, 700);
    set(Metric::kClock, 1980e6, "sm").set(Metric::kClockMax, 1980e6, "sm");
    for (const char* r : {"sw_power_cap", "hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown",
                          "hw_power_brake_slowdown"})
      set(Metric::kClockEventActive, 0, r);
    set(Metric::kPcieReplays, 0).set(Metric::kPcieLinkGeneration, 5).set(Metric::kPcieLinkMaxGeneration, 5);
    set(Metric::kPcieLinkWidth, 16).set(Metric::kPcieLinkMaxWidth, 16);
    for (const char* type : {"corrected", "uncorrected"})
      for (const char* counter : {"volatile", "aggregate"}) set(Metric::kEccErrors, 0, type, counter);
    set(Metric::kRemappedRowsPending, 0).set(Metric::kRemappedRowsFailure, 0);
    set(Metric::kRemappedRows, 0, "correctable").set(Metric::kRemappedRows, 0, "uncorrectable");
  }
  // Sets (or adds) a sample; labels as in the metric catalogue.
  Gpu& set(Metric m, double value, std::string l0 = {}, std::string l1 = {}) {
    for (auto& s : d_.samples) {
      if (s.metric == m && s.labels[0] == l0 && s.labels[1] == l1) {
        s.value = value;
        return *this;
      }
    }
    d_.samples.push_back({m, value, {l0, l1, ""}});
    return *this;
  }
  Gpu& process(unsigned pid, std::string name, double bytes, std::optional<double> sm_utilization = {}) {
    ProcessSample p;
    p.pid = pid;
    p.name = std::move(name);
    p.type = "compute";
    p.used_memory_bytes = bytes;
    p.sm_utilization = sm_utilization;
    d_.processes.push_back(p);
    return *this;
  }
  Gpu& state(DeviceState s) {
    d_.state = s;
    return *this;
  }
  Gpu& xid(unsigned code, std::uint64_t count) {
    d_.xid_counts[code] = count;
    d_.last_xid = code;
    return *this;
  }
  Gpu& last_read(std::int64_t ms) {
    d_.last_read_ms = ms;
    return *this;
  }
  const DeviceSnapshot& device() const { return d_; }
  const std::string& bus() const { return d_.identity.pci_bus_id; }

 private:
  DeviceSnapshot d_;
};

// Sets the tunable "<detector>.<tunable>" (in its unit's base: milliseconds, bytes, ...); one that no
// detector of the table has fails the test, so a misspelt name cannot leave a test on the defaults.
inline void tune(DetectorSettings& s, std::string_view key, double value) {
  const auto dot = key.find('.');
  const auto detector = key.substr(0, dot), tunable = key.substr(dot + 1);
  const auto table = detector_table();
  const bool known = std::any_of(table.begin(), table.end(), [&](const DetectorInfo& d) {
    return d.name == detector && std::any_of(d.tunables.begin(), d.tunables.end(),
                                             [&](const rules::Tunable& t) { return t.name == tunable; });
  });
  if (!known) ADD_FAILURE() << "no detector has the tunable " << key;
  s.set(detector, tunable, value);
}
inline void tune(DetectorSettings& s, std::string_view key, std::chrono::milliseconds value) {
  tune(s, key, static_cast<double>(value.count()));
}

// The detector of the table's row `name`, built as the DetectorSet builds it.
inline std::unique_ptr<Detector> make_detector(std::string_view name, const DetectorSettings& settings = {}) {
  for (const auto& d : detector_table())
    if (d.name == name) return d.make(settings);
  ADD_FAILURE() << "no detector named " << name;
  return nullptr;
}

inline Snapshot snapshot_at(std::int64_t t_ms, const std::vector<Gpu>& gpus) {
  Snapshot s;
  s.timestamp_ms = t_ms;
  for (const auto& g : gpus) s.devices.push_back(g.device());
  return s;
}

inline std::vector<Condition> evaluate(Detector& d, const Snapshot& s,
                                       std::vector<kernel::KernelEvent> events = {}) {
  DetectionInput in{s, std::move(events), {}, {}, {}, {}};
  std::vector<Condition> out;
  d.evaluate(in, out);
  return out;
}

inline std::vector<std::string> names(const std::vector<Condition>& cs) {
  std::vector<std::string> out;
  for (const auto& c : cs) out.push_back(c.alertname);
  return out;
}

}  // namespace gpuwatch::detect::test
