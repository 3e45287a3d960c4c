// One rule book: for every XID of the catalogue and every fault kind of the simulator, the health verdict
// that `gpuwatch status` exits with (and /api/v1/gpus shows) agrees with the alerts the detectors raise for
// the same GPU: a firing page makes the GPU critical, a firing ticket makes it a warning, none leaves it
// healthy. Each scenario runs through the real collector on libnvml-sim in lockstep and the alert engine
// applies each condition's `for` duration; the faults start at 60 s and are judged six minutes later, past
// every `for`.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>

#include "game_day.h"
#include "rules/health.h"
#include "rules/xid_catalogue.h"
#include "sim_support.h"

namespace gpuwatch::detect::test {
namespace {

constexpr int kFaultAt = 60;
constexpr double kJudgeAt = kFaultAt + 360;

// The alerts a one-reading verdict judges (the rule book lists them); the rest need history (rates,
// repeats), the kernel log, or are about the workloads on the GPU rather than the GPU.
bool judges_health(const std::string& alertname) {
  for (const auto name : health_alerts())
    if (name == alertname) return true;
  return false;
}

struct Case {
  std::string what;
  std::vector<std::string> faults;  // one YAML fault entry per GPU, GPU i gets faults[i]
  std::string yaml = {};            // the whole scenario instead, where the GPUs need more than a model
};

std::string scenario_yaml(const Case& c) {
  if (!c.yaml.empty()) return c.yaml;
  std::string y = std::string("node: {seed: 7, mode: lockstep}\ndevices:\n  - {model: H200") +
                  ", count: " + std::to_string(std::max<std::size_t>(c.faults.size(), 1)) + "}\n";
  y += "processes:\n";
  for (std::size_t g = 0; g < std::max<std::size_t>(c.faults.size(), 1); ++g)
    y += "  - {pid: " + std::to_string(7000 + g) + ", gpu: " + std::to_string(g) +
         ", name: python3, memory: {value: 60GiB, noise: 128MiB}, sm_util: {value: 80, noise: 5}}\n";
  y += "faults:\n";
  for (const auto& f : c.faults)
    if (!f.empty()) y += "  - " + f + "\n";
  return y;
}

std::string fault(std::size_t gpu, const std::string& type, const std::string& rest = "") {
  return "{type: " + type + ", gpu: " + std::to_string(gpu) + ", at: " + std::to_string(kFaultAt) + "s" +
         (rest.empty() ? "" : ", " + rest) + "}";
}

// Every XID of the catalogue and one it does not know, eight GPUs a scenario.
std::vector<Case> xid_cases() {
  std::vector<unsigned> codes;
  for (const auto& x : rules::xid_catalogue()) codes.push_back(x.code);
  codes.push_back(999);  // not in the catalogue
  std::vector<Case> cases;
  for (std::size_t i = 0; i < codes.size(); i += 8) {
    Case c{"XIDs", {}};
    for (std::size_t g = 0; g < 8 && i + g < codes.size(); ++g) {
      c.faults.push_back(fault(g, "xid", "code: " + std::to_string(codes[i + g])));
      c.what += " " + std::to_string(codes[i + g]);
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

// Every fault kind of the simulator (docs/scenario-format.md), per GPU where it is a per-GPU fault.
std::vector<Case> fault_cases() {
  return {
      {"per-GPU faults",
       {fault(0, "thermal_throttle", "duration: 20m"), fault(1, "power_cap", "limit: 400W, duration: 20m"),
        fault(2, "power_cap", "limit: 400W, brake: true, duration: 20m"),
        fault(3, "memory_leak", "pid: 7003, rate: 64MiB/s, duration: 5m"),
        fault(4, "process_oom", "pid: 7004, rate: 1GiB/s"), fault(5, "fall_off_bus"),
        fault(6, "ecc_sbe", "rate: 360/h"), fault(7, "ecc_dbe")}},
      {"memory repair and PCIe",
       {fault(0, "row_remap", "pending: true"), fault(1, "row_remap", "failure: true"),
        fault(2, "row_remap", "uncorrectable: 600"), fault(3, "pcie_replays", "rate: 4/s"),
        fault(4, "pcie_replays", "rate: 6/m"), fault(5, "link_downtrain", "width: 8"),
        fault(6, "link_downtrain", "gen: 3"), fault(7, "hung_call", "duration: 390s")}},
      {"driver hang", {"{type: driver_hang, at: 60s, duration: 390s}", ""}},
      {"driver reload", {"{type: driver_reload, at: 60s, new_driver_version: 560.35.03}", ""}},
      {"driver unload", {"{type: driver_unload, at: 60s}", ""}},
      {"MIG reconfiguration",
       {},
       "node: {seed: 7, mode: lockstep}\ndevices:\n  - {model: A100-SXM4-80GB, mig: {enabled: true, "
       "instances: [3g.40gb, "
       "4g.40gb]}}\nfaults:\n  - {type: mig_reconfigure, gpu: 0, at: 60s, instances: [7g.80gb]}\n"},
  };
}

void expect_agreement(const Case& c, const std::string& dir, int n) {
  const std::string path = dir + "/rule-book-" + std::to_string(n) + ".yaml";
  std::ofstream(path) << scenario_yaml(c);
  SCOPED_TRACE(c.what + "\n" + scenario_yaml(c));
  GameDayOptions o;
  o.end_s = kJudgeAt;
  o.drain_s = 60;  // the hangs end at 450 s
  const GameDayResult r = run_game_day(path, o);
  ASSERT_TRUE(r.last_snapshot);
  for (const auto& d : r.last_snapshot->devices) {
    if (d.identity.is_mig_instance) continue;
    const std::string gpu = std::to_string(d.identity.index);
    HealthVerdict from_alerts = HealthVerdict::kHealthy;
    std::string alerts;
    for (const auto& [name, severity, alert_gpu] : r.firing_at_end) {
      if (alert_gpu != gpu || !judges_health(name)) continue;
      alerts += " " + name + "(" + severity + ")";
      const HealthVerdict v = severity == "page" ? HealthVerdict::kCritical : HealthVerdict::kWarning;
      if (static_cast<int>(v) > static_cast<int>(from_alerts)) from_alerts = v;
    }
    const Health h = assess_health(d, o.settings);
    std::string reasons;
    for (const auto& reason : h.reasons) reasons += " [" + reason + "]";
    EXPECT_EQ(to_string(h.verdict), std::string(to_string(from_alerts)))
        << "GPU " << gpu << ": alerts" << (alerts.empty() ? " none" : alerts) << "; health says"
        << (reasons.empty() ? " nothing" : reasons);
    std::cout << "  GPU " << gpu << ": " << to_string(h.verdict) << " <->"
              << (alerts.empty() ? " none" : alerts) << "\n";
  }
}

TEST(RuleBook, EveryXidOfTheCatalogueJudgesHealthAsItsAlertDoes) {
  gpuwatch::test::TempDir dir;
  int n = 0;
  for (const auto& c : xid_cases()) expect_agreement(c, dir.path(), n++);
}

TEST(RuleBook, EveryFaultKindOfTheSimulatorJudgesHealthAsItsAlertsDo) {
  gpuwatch::test::TempDir dir;
  int n = 0;
  for (const auto& c : fault_cases()) expect_agreement(c, dir.path(), n++);
}

}  // namespace
}  // namespace gpuwatch::detect::test
