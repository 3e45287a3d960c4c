// The collector across a driver reload or unload and a MIG reconfiguration, through dlopen of libnvml-sim in
// lockstep: the test moves scenario time and ticks, as the agent's loop would once a second.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "collector/collector.h"
#include "sim_support.h"

namespace gpuwatch {
namespace {

constexpr const char* kReloadScenario = R"(
node: {hostname: sim-node-7, start: "2025-03-01T12:00:00Z", driver_version: 550.54.15}
devices:
  - {model: H200, count: 2}
faults:
  - {type: xid, gpu: 1, at: 5s, code: 31}
  - {type: driver_reload, at: 20s, duration: 60s, new_driver_version: 560.35.03}
  - {type: driver_unload, at: 200s, duration: 10s}
)";

CollectorOptions reinit_options() {
  CollectorOptions o;
  o.nvml_library = test::sim_library_path();
  o.interval = std::chrono::milliseconds(1000);
  o.deadline = std::chrono::milliseconds(500);  // generous: a loaded test machine must not make a GPU stale
  return o;
}

// Records the events the collector's listener delivers, so a test can wait for one in wall time.
class EventLog {
 public:
  explicit EventLog(Collector& c) {
    c.set_event_callback([this](const std::string&, unsigned long long type, unsigned long long) {
      std::lock_guard lock(mutex_);
      types_.push_back(type);
      seen_.notify_all();
    });
  }
  bool wait_for(unsigned long long type) {
    std::unique_lock lock(mutex_);
    return seen_.wait_for(lock, std::chrono::seconds(10),
                          [&] { return std::find(types_.begin(), types_.end(), type) != types_.end(); });
  }

 private:
  std::mutex mutex_;
  std::condition_variable seen_;
  std::vector<unsigned long long> types_;
};

class Reinit : public ::testing::Test {
 protected:
  SnapshotPtr tick_at(Collector& c, double seconds) {
    c.clock().sleep_until_ms(sim_.ms_at(seconds));
    c.tick();
    return c.latest();
  }
  static std::vector<std::string> uuids(const Snapshot& s) {
    std::vector<std::string> out;
    for (const auto& d : s.devices) out.push_back(d.identity.uuid);
    return out;
  }

  test::SimScenario scenario_{kReloadScenario};
  test::Sim sim_;
};

TEST_F(Reinit, ADriverReloadIsReportedThenRecoveredWithBackoffAndTheSameGpus) {
  Collector c(reinit_options());
  EventLog events(c);
  tick_at(c, 4);  // registers the GPUs for events
  sim_.advance_to(5);
  ASSERT_TRUE(events.wait_for(nvmlEventTypeXidCriticalError)) << "no XID within 10 s of wall time";
  const auto before = tick_at(c, 19);
  ASSERT_TRUE(before->source_error.empty()) << before->source_error;
  ASSERT_EQ(before->devices.size(), 2U);
  EXPECT_EQ(before->node.driver_version, "550.54.15");
  EXPECT_EQ(before->devices[1].xid_counts, (std::map<unsigned, std::uint64_t>{{31, 1}}));
  const auto inits_before = c.stats().nvml_inits;
  EXPECT_EQ(inits_before, 1U);

  // During the reload every tick still publishes, and says what NVML answered.
  std::uint64_t sequence = before->sequence;
  for (int t = 20; t < 80; ++t) {
    const auto snap = tick_at(c, t);
    EXPECT_EQ(snap->sequence, ++sequence);
    EXPECT_EQ(snap->timestamp_ms, sim_.ms_at(t));
    EXPECT_NE(snap->source_error.find("version mismatch"), std::string::npos)
        << "at " << t << " s: " << snap->source_error;
    for (const auto& d : snap->devices) EXPECT_NE(d.state, DeviceState::kOk) << "at " << t << " s";
  }
  // Backoff (1, 2, 4, 8, 16, 30 s): a handful of attempts over the 60 s, not one per tick.
  const auto attempts = c.stats().nvml_inits - inits_before;
  EXPECT_GE(attempts, 4U);
  EXPECT_LE(attempts, 7U);

  // Back within one (capped) backoff of the driver's return.
  SnapshotPtr after;
  for (int t = 80; t <= 111 && (!after || !after->source_error.empty()); ++t) after = tick_at(c, t);
  ASSERT_TRUE(after->source_error.empty()) << after->source_error;
  EXPECT_EQ(uuids(*after), uuids(*before)) << "the same GPUs, by UUID";
  EXPECT_EQ(after->node.driver_version, "560.35.03");
  EXPECT_EQ(after->node.hostname, "sim-node-7");
  for (const auto& d : after->devices) EXPECT_EQ(d.state, DeviceState::kOk);
  EXPECT_EQ(after->devices[1].xid_counts, (std::map<unsigned, std::uint64_t>{{31, 1}}))
      << "XID counts survive the reload";
  EXPECT_EQ(after->devices[1].last_xid, 31U);
  EXPECT_LE(c.stats().nvml_inits - inits_before, 8U);
}

TEST_F(Reinit, ADriverUnloadSaysDriverNotLoaded) {
  Collector c(reinit_options());
  ASSERT_TRUE(tick_at(c, 199)->source_error.empty());
  tick_at(c, 200);
  const auto down = tick_at(c, 201);
  EXPECT_NE(down->source_error.find("Driver Not Loaded"), std::string::npos) << down->source_error;
  EXPECT_NE(down->source_error.find("retrying"), std::string::npos) << down->source_error;
  SnapshotPtr back;
  for (int t = 202; t <= 240 && (!back || !back->source_error.empty()); ++t) back = tick_at(c, t);
  EXPECT_TRUE(back->source_error.empty()) << back->source_error;
  EXPECT_EQ(back->devices.size(), 2U);
}

// What /metrics shows as gpuwatch_source_success and gpuwatch_source_error_info, and GpuMonitoringDown uses.
TEST_F(Reinit, ADriverUnloadIsAFailedNvmlSourceWithItsReasonUntilItLoadsAgain) {
  Collector c(reinit_options());
  const auto up = tick_at(c, 199);
  ASSERT_EQ(up->sources.size(), 1U);
  EXPECT_EQ(up->sources[0].name, "nvml");
  EXPECT_TRUE(up->sources[0].success);
  EXPECT_TRUE(up->sources[0].reason.empty());
  EXPECT_GT(up->sources[0].duration_seconds, 0);
  tick_at(c, 200);
  const auto down = tick_at(c, 201);
  ASSERT_EQ(down->sources.size(), 1U);
  EXPECT_FALSE(down->sources[0].success);
  EXPECT_EQ(down->sources[0].reason, "driver_not_loaded");
  EXPECT_NE(down->sources[0].message.find("Driver Not Loaded"), std::string::npos)
      << down->sources[0].message;
  // No countdown in it: the message stays the same from tick to tick while the cause lasts.
  EXPECT_EQ(down->sources[0].message.find("retrying"), std::string::npos) << down->sources[0].message;
  SnapshotPtr back;
  for (int t = 202; t <= 240 && (!back || !back->sources[0].success); ++t) back = tick_at(c, t);
  EXPECT_TRUE(back->sources[0].success);
  EXPECT_TRUE(back->sources[0].message.empty());
}

TEST_F(Reinit, TheSimulatedNodesHostnameIsReportedUnlessOverridden) {
  {
    Collector c(reinit_options());
    EXPECT_EQ(tick_at(c, 1)->node.hostname, "sim-node-7");
  }
  auto options = reinit_options();
  options.hostname = "override-host";
  Collector c(options);
  EXPECT_EQ(tick_at(c, 2)->node.hostname, "override-host");
}

TEST(ReinitMig, AReconfigurationListsTheNewInstancesAndNotTheOldOnes) {
  test::SimScenario scenario(R"(
node: {start: "2025-03-01T12:00:00Z"}
devices:
  - model: H200
    mig: {enabled: true, instances: [3g.71gb, 3g.71gb]}
  - {model: H200}
faults:
  - {type: mig_reconfigure, gpu: 0, at: 30s, instances: [1g.18gb, 1g.18gb, 2g.35gb]}
)");
  test::Sim sim;
  Collector c(reinit_options());
  EventLog events(c);
  const auto mig_uuids = [](const Snapshot& s) {
    std::set<std::string> out;
    for (const auto& d : s.devices) {
      if (d.identity.is_mig_instance) out.insert(d.identity.uuid);
    }
    return out;
  };
  c.clock().sleep_until_ms(sim.ms_at(29));
  c.tick();
  const auto before = c.latest();
  const auto old_instances = mig_uuids(*before);
  ASSERT_EQ(old_instances.size(), 2U);

  sim.advance_to(30);
  ASSERT_TRUE(events.wait_for(nvmlEventMigConfigChange)) << "no MIG change event within 10 s of wall time";
  c.tick();
  const auto after = c.latest();
  const auto new_instances = mig_uuids(*after);
  EXPECT_EQ(new_instances.size(), 3U);
  for (const auto& uuid : old_instances) EXPECT_FALSE(new_instances.contains(uuid)) << uuid;
  std::multiset<std::string> names;
  for (const auto& d : after->devices) {
    if (d.identity.is_mig_instance) {
      names.insert(d.identity.name);
      EXPECT_EQ(d.state, DeviceState::kOk);
    }
  }
  EXPECT_EQ(names, (std::multiset<std::string>{"NVIDIA H200 MIG 1g.18gb", "NVIDIA H200 MIG 1g.18gb",
                                               "NVIDIA H200 MIG 2g.35gb"}));
  EXPECT_TRUE(after->collector_errors.empty()) << "no call went to a stale MIG handle";
  EXPECT_EQ(after->devices.size(), 5U);
}

}  // namespace
}  // namespace gpuwatch
