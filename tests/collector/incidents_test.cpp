// scenarios/incidents-8xh200.yaml through the collector, in lockstep: each GPU's fault shows up as the right
// values at the right scenario time, and the other GPUs go on.
//   GPU0 thermal throttle 3m..23m   GPU1 leak 2m..6m, OOM from 6m   GPU2 SBEs 2m..7m, DBE at 7m
//   GPU3 off the bus at 8m          GPU4 replays from 2m, x8 at 5m  GPU5 hung calls 4m..5m
//   GPU6 XIDs 13/31/43 at 2m30/5m/9m                                GPU7 power cap 450 W + brake 10m..25m
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "collector/collector.h"
#include "sim_support.h"

namespace gpuwatch {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

const ProcessSample* process(const DeviceSnapshot& d, unsigned pid) {
  for (const auto& p : d.processes) {
    if (p.pid == pid) return &p;
  }
  return nullptr;
}

class IncidentsTest : public ::testing::Test {
 protected:
  IncidentsTest() {
    sim_.write_proc_tree(proc_.path());
    CollectorOptions o;
    o.nvml_library = test::sim_library_path();
    o.proc_root = proc_.path();
    o.deadline =
        std::chrono::milliseconds(500);  // generous: a loaded machine must not make a healthy GPU stale
    collector_ = std::make_unique<Collector>(o);
    collector_->set_event_callback(
        [this](const std::string&, unsigned long long type, unsigned long long data) {
          std::lock_guard lock(mutex_);
          if (type == nvmlEventTypeXidCriticalError) xids_seen_.push_back(static_cast<unsigned>(data));
          cv_.notify_all();
        });
  }

  SnapshotPtr tick_at(double seconds) {
    collector_->clock().sleep_until_ms(sim_.ms_at(seconds));
    collector_->tick();
    auto s = collector_->latest();
    EXPECT_EQ(s->devices.size(), 8U) << "at " << seconds << " s";
    return s;
  }

  // Events reach the collector on its event thread; wait (wall time) until that thread has seen this XID.
  void await_xid(unsigned xid) {
    std::unique_lock lock(mutex_);
    const bool seen = cv_.wait_for(lock, std::chrono::seconds(10), [&] {
      return std::find(xids_seen_.begin(), xids_seen_.end(), xid) != xids_seen_.end();
    });
    ASSERT_TRUE(seen) << "XID " << xid << " was not delivered";
  }

  test::SimScenario scenario_{test::ScenarioFile{test::scenario_path("incidents-8xh200.yaml")}};
  test::Sim sim_;
  test::TempDir proc_;
  std::unique_ptr<Collector> collector_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<unsigned> xids_seen_;
};

TEST_F(IncidentsTest, ThermalThrottleOnGpu0FromMinute3) {
  auto before = tick_at(170);
  EXPECT_EQ(test::value_of(before->devices[0], Metric::kClockEventActive, "sw_thermal_slowdown"), 0);
  EXPECT_EQ(test::value_of(before->devices[0], Metric::kClockEventActive, "hw_thermal_slowdown"), 0);
  auto during = tick_at(200);
  EXPECT_EQ(test::value_of(during->devices[0], Metric::kClockEventActive, "sw_thermal_slowdown"), 1);
  EXPECT_EQ(test::value_of(during->devices[0], Metric::kClockEventActive, "hw_thermal_slowdown"), 1);
  EXPECT_GT(test::value_of(during->devices[0], Metric::kViolation, "thermal"),
            test::value_of(before->devices[0], Metric::kViolation, "thermal"));
  EXPECT_EQ(test::value_of(during->devices[1], Metric::kClockEventActive, "hw_thermal_slowdown"), 0);
}

TEST_F(IncidentsTest, MemoryLeakOnGpu1GrowsThenTheOomKilledProcessIsGone) {
  auto start = tick_at(120);
  const ProcessSample* p = process(start->devices[1], 61001);
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(p->used_memory_bytes.has_value());
  const double at_2m = *p->used_memory_bytes;
  auto later = tick_at(240);
  p = process(later->devices[1], 61001);
  ASSERT_NE(p, nullptr);
  // 40 MiB/s for 120 s is 4.7 GiB, give or take the scenario's 256 MiB noise.
  EXPECT_GT(*p->used_memory_bytes - at_2m, 4 * kGiB);
  EXPECT_LT(*p->used_memory_bytes - at_2m, 5.5 * kGiB);
  EXPECT_EQ(p->name, "python3");
  EXPECT_GT(test::value_of(later->devices[1], Metric::kMemoryUsed),
            test::value_of(start->devices[1], Metric::kMemoryUsed));

  auto after_oom = tick_at(600);
  EXPECT_EQ(process(after_oom->devices[1], 61001), nullptr) << "the OOM-killed process still shows";
  EXPECT_NE(process(after_oom->devices[0], 61000), nullptr);
}

TEST_F(IncidentsTest, EccErrorsOnGpu2AndXid48AtMinute7) {
  auto first = tick_at(100);
  EXPECT_EQ(test::value_of(first->devices[2], Metric::kEccErrors, "corrected", "volatile"), 0);
  auto sbe = tick_at(300);
  EXPECT_GT(test::value_of(sbe->devices[2], Metric::kEccErrors, "corrected", "volatile"), 0);
  EXPECT_EQ(test::value_of(sbe->devices[2], Metric::kEccErrors, "uncorrected", "volatile"), 0);
  EXPECT_TRUE(sbe->devices[2].xid_counts.empty());

  sim_.advance_to(425);
  await_xid(48);
  auto dbe = tick_at(425);
  EXPECT_GE(test::value_of(dbe->devices[2], Metric::kEccErrors, "uncorrected", "volatile"), 1);
  ASSERT_EQ(dbe->devices[2].xid_counts.count(48), 1U);
  EXPECT_GE(dbe->devices[2].xid_counts.at(48), 1U);
  EXPECT_EQ(dbe->devices[2].last_xid, 48U);
  EXPECT_GE(test::value_of(dbe->devices[2], Metric::kCriticalEvents, "double_bit_ecc"), 1);
  EXPECT_TRUE(dbe->devices[1].xid_counts.empty());
}

TEST_F(IncidentsTest, Gpu3FallsOffTheBusAtMinute8AndTheOthersGoOn) {
  auto before = tick_at(470);
  EXPECT_EQ(test::value_of(before->devices[3], Metric::kUp), 1);
  sim_.advance_to(485);
  await_xid(79);
  auto after = tick_at(485);
  EXPECT_EQ(after->devices[3].state, DeviceState::kLost);
  EXPECT_EQ(test::value_of(after->devices[3], Metric::kUp), 0);
  EXPECT_EQ(after->devices[3].identity.uuid, before->devices[3].identity.uuid);
  EXPECT_EQ(after->devices[3].xid_counts.count(79), 1U);
  for (int i : {0, 1, 2, 4, 6, 7}) {
    EXPECT_EQ(after->devices[i].state, DeviceState::kOk) << "GPU " << i;
    EXPECT_EQ(test::value_of(after->devices[i], Metric::kUp), 1) << "GPU " << i;
  }
}

TEST_F(IncidentsTest, PcieReplaysOnGpu4ThenTheLinkTrainsDownToX8) {
  auto healthy = tick_at(60);
  EXPECT_EQ(test::value_of(healthy->devices[4], Metric::kPcieReplays), 0);
  EXPECT_EQ(test::value_of(healthy->devices[4], Metric::kPcieLinkWidth), 16);
  auto replays = tick_at(180);
  EXPECT_GT(test::value_of(replays->devices[4], Metric::kPcieReplays), 100);  // 3/s for 60 s
  EXPECT_EQ(test::value_of(replays->devices[4], Metric::kPcieLinkWidth), 16);
  auto downtrained = tick_at(310);
  EXPECT_EQ(test::value_of(downtrained->devices[4], Metric::kPcieLinkWidth), 8);
  EXPECT_EQ(test::value_of(downtrained->devices[4], Metric::kPcieLinkMaxWidth), 16);
  EXPECT_EQ(test::value_of(downtrained->devices[3], Metric::kPcieLinkWidth), 16);
}

TEST_F(IncidentsTest, HungCallsOnGpu5MakeItStaleWhileTheOthersStayFresh) {
  auto before = tick_at(230);
  const double power_before = test::value_of(before->devices[5], Metric::kPower);
  auto hung = tick_at(250);
  EXPECT_EQ(hung->devices[5].state, DeviceState::kStale);
  EXPECT_EQ(test::value_of(hung->devices[5], Metric::kStale), 1);
  EXPECT_EQ(test::value_of(hung->devices[5], Metric::kUp), 0);
  EXPECT_EQ(test::value_of(hung->devices[5], Metric::kPower), power_before);
  EXPECT_EQ(hung->devices[5].identity.uuid, before->devices[5].identity.uuid);
  for (int i : {0, 1, 2, 3, 4, 6, 7}) {
    EXPECT_EQ(hung->devices[i].state, DeviceState::kOk) << "GPU " << i;
    EXPECT_EQ(hung->devices[i].last_read_ms, sim_.ms_at(250)) << "GPU " << i;
  }
  auto back = tick_at(310);
  EXPECT_EQ(back->devices[5].state, DeviceState::kOk);
  EXPECT_EQ(back->devices[5].last_read_ms, sim_.ms_at(310));
}

TEST_F(IncidentsTest, ApplicationXidsOnGpu6AreCountedPerCode) {
  tick_at(60);
  sim_.advance_to(545);
  await_xid(43);
  auto s = tick_at(545);
  const auto& xids = s->devices[6].xid_counts;
  EXPECT_EQ(xids.size(), 3U);
  for (unsigned code : {13U, 31U, 43U}) {
    ASSERT_EQ(xids.count(code), 1U) << code;
    EXPECT_EQ(xids.at(code), 1U) << code;
  }
  EXPECT_EQ(s->devices[6].last_xid, 43U);
}

TEST_F(IncidentsTest, PowerCapAndBrakeOnGpu7FromMinute10) {
  auto before = tick_at(590);
  EXPECT_EQ(test::value_of(before->devices[7], Metric::kPowerLimit), 700);
  EXPECT_EQ(test::value_of(before->devices[7], Metric::kClockEventActive, "hw_power_brake_slowdown"), 0);
  auto capped = tick_at(620);
  EXPECT_EQ(test::value_of(capped->devices[7], Metric::kPowerLimit), 450);
  EXPECT_EQ(test::value_of(capped->devices[7], Metric::kClockEventActive, "sw_power_cap"), 1);
  EXPECT_EQ(test::value_of(capped->devices[7], Metric::kClockEventActive, "hw_power_brake_slowdown"), 1);
  EXPECT_EQ(test::value_of(capped->devices[7], Metric::kClockEventActive, "hw_slowdown"), 1);
  EXPECT_LE(test::value_of(capped->devices[7], Metric::kPower), 450.5);
  EXPECT_EQ(test::value_of(capped->devices[6], Metric::kPowerLimit), 700);
}

}  // namespace
}  // namespace gpuwatch
