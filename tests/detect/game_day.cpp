#include "game_day.h"

#include <chrono>
#include <cstdlib>
#include <memory>

#include "alerting/alert_engine.h"
#include "collector/collector.h"
#include "detect/detection.h"
#include "sim_support.h"

namespace gpuwatch::detect::test {
namespace {

std::string key_severity(Severity s) {
  return s == Severity::kPage ? "page" : "ticket";
}

AlertKey key_of(const Condition& c) {
  auto gpu = c.labels.find("gpu");
  return {c.alertname, key_severity(c.severity), gpu == c.labels.end() ? "" : gpu->second};
}

AlertKey key_of(const alerting::Alert& a) {
  auto label = [&](const char* name) {
    auto it = a.labels.find(name);
    return it == a.labels.end() ? std::string() : it->second;
  };
  return {label("alertname"), label("severity"), label("gpu")};
}

// The kernel-log file the simulator writes as scenario time moves (GPUWATCH_SIM_KMSG), for one game day.
class SimKernelLog {
 public:
  explicit SimKernelLog(const std::string& path) { setenv("GPUWATCH_SIM_KMSG", path.c_str(), 1); }
  ~SimKernelLog() { unsetenv("GPUWATCH_SIM_KMSG"); }
  SimKernelLog(const SimKernelLog&) = delete;
  SimKernelLog& operator=(const SimKernelLog&) = delete;
};

}  // namespace

GameDayResult run_game_day(const std::string& scenario_path, const GameDayOptions& options) {
  gpuwatch::test::SimScenario scenario{gpuwatch::test::ScenarioFile{scenario_path}};
  gpuwatch::test::TempDir dir;
  const std::string kmsg = dir.path() + "/kmsg";
  SimKernelLog kernel_log(kmsg);
  gpuwatch::test::Sim sim;
  sim.write_proc_tree(dir.path());
  const std::string sysfs = dir.path() + "/sys";
  sim.write_sysfs_tree(sysfs);
  CollectorOptions o;
  o.nvml_library = gpuwatch::test::sim_library_path();
  o.proc_root = dir.path();
  o.deadline = std::chrono::milliseconds(300);  // a hung GPU costs this much wall time per tick
  // The simulator's kernel log, /proc tree (mapped CUDA libraries, cgroups) and /sys tree (PCIe switches),
  // read by the collector's host sources into each snapshot.
  o.host = {kmsg, options.read_sysfs ? sysfs : "", dir.path(), "", "", ""};
  Collector collector(o);
  Detection detection({options.settings, AccountingSettings{}});

  // The alert engine applies each condition's for duration: an alert counts once it fires.
  alerting::AlertEngineOptions engine_options;
  engine_options.hostname = "game-day";
  alerting::AlertEngine engine(engine_options);
  GameDayResult result;
  for (double t = 0; t <= options.end_s; t += options.step_s) {
    collector.clock().sleep_until_ms(sim.ms_at(t));
    collector.tick();
    const SnapshotPtr snap = collector.latest();
    const auto conditions = detection.evaluate(*snap);
    double total_w = 0;
    for (const auto& d : snap->devices)
      if (const Sample* p = d.find(Metric::kPower)) total_w += p->value;
    result.node_power_w.push_back(total_w);
    std::map<AlertKey, const Condition*> by_key;
    for (const auto& c : conditions) by_key.emplace(key_of(c), &c);
    result.last_snapshot = snap;
    for (const auto& alert : engine.evaluate(conditions, snap->timestamp_ms)) {
      const AlertKey k = key_of(alert);
      if (alert.state != alerting::AlertState::kFiring || result.fired.contains(k)) continue;
      result.fired[k] = t;
      if (auto it = by_key.find(k); it != by_key.end()) result.example[k] = *it->second;
    }
  }
  for (const auto& alert : engine.alerts())
    if (alert.state == alerting::AlertState::kFiring) result.firing_at_end.insert(key_of(alert));
  // A reader blocked in a hung call holds the simulator loaded; let the hang end so the next game day in
  // this process loads its own scenario.
  for (double t = options.end_s + options.step_s; t <= options.end_s + options.drain_s; t += options.step_s) {
    collector.clock().sleep_until_ms(sim.ms_at(t));
    collector.tick();
  }
  return result;
}

double Score::precision() const {
  const auto positives = true_positives + false_positives;
  return positives == 0 ? 1.0 : static_cast<double>(true_positives) / static_cast<double>(positives);
}

double Score::recall() const {
  const auto relevant = true_positives + false_negatives;
  return relevant == 0 ? 1.0 : static_cast<double>(true_positives) / static_cast<double>(relevant);
}

Score score(const std::set<AlertKey>& expected, const GameDayResult& result) {
  Score s;
  for (const auto& [k, t] : result.fired) {
    if (std::get<0>(k) == "Watchdog") continue;
    if (expected.contains(k))
      ++s.true_positives;
    else
      ++s.false_positives;
  }
  for (const auto& k : expected)
    if (!result.fired.contains(k)) ++s.false_negatives;
  return s;
}

std::string describe(const AlertKey& k) {
  return std::get<0>(k) + "{severity=" + std::get<1>(k) + ",gpu=" + std::get<2>(k) + "}";
}

}  // namespace gpuwatch::detect::test
