// The collector through dlopen of libnvml-sim in lockstep: the test moves scenario time, then ticks.
#include "collector/collector.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "sim_support.h"

namespace gpuwatch {
namespace {

using std::chrono::milliseconds;

constexpr const char* kScenario = R"(
node: {hostname: test-node, start: "2025-03-01T12:00:00Z"}
devices:
  - model: H200
    count: 3
    workload: {utilization: 70}
processes:
  - {pid: 5001, gpu: 0, name: trainer, memory: 20GiB, sm_util: 60}
faults:
  - {type: fall_off_bus, gpu: 1, at: 20s}
  - {type: hung_call, gpu: 2, at: 40s, duration: 30s}
  - {type: xid, gpu: 0, at: 60s, code: 48}
  - {type: ecc_dbe, gpu: 0, at: 60s}
)";

CollectorOptions sim_options() {
  CollectorOptions o;
  o.nvml_library = test::sim_library_path();
  o.interval = milliseconds(1000);
  o.deadline = milliseconds(500);  // generous: a loaded test machine must not make a healthy GPU stale
  return o;
}

// Every test of the fixture runs twice: each GPU read on a worker of its own (the agent), and the GPUs read
// in turn on one worker (status's one-shot read), which must leave a hung GPU just as alone.
class CollectorTest : public ::testing::TestWithParam<bool> {
 protected:
  static CollectorOptions options() {
    CollectorOptions o = sim_options();
    o.read_in_turn = GetParam();
    return o;
  }

  // Moves scenario time to `seconds` and collects.
  SnapshotPtr tick_at(Collector& c, double seconds) {
    c.clock().sleep_until_ms(sim_.ms_at(seconds));
    c.tick();
    return c.latest();
  }

  test::SimScenario scenario_{kScenario};
  test::Sim sim_;
};

TEST(CollectorWithoutNvml, PublishesTheReasonAndKeepsRetrying) {
  CollectorOptions o;
  o.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  Collector c(o);
  EXPECT_STREQ(c.clock().domain(), "wall");
  c.tick();
  auto first = c.latest();
  EXPECT_FALSE(c.ready());
  EXPECT_TRUE(first->devices.empty());
  EXPECT_NE(first->source_error.find("/nonexistent/libnvidia-ml.so.1"), std::string::npos)
      << first->source_error;
  EXPECT_NE(first->source_error.find("retrying"), std::string::npos) << first->source_error;
  c.tick();
  EXPECT_EQ(c.latest()->sequence, first->sequence + 1);
  EXPECT_FALSE(c.latest()->source_error.empty());
}

TEST_P(CollectorTest, UsesTheScenarioClockAndPublishesImmutableSnapshots) {
  Collector c(options());
  EXPECT_STREQ(c.clock().domain(), "scenario-lockstep");
  EXPECT_FALSE(c.ready());
  auto first = tick_at(c, 10);
  EXPECT_TRUE(c.ready());
  EXPECT_TRUE(first->source_error.empty()) << first->source_error;
  EXPECT_EQ(first->timestamp_ms, sim_.ms_at(10));
  EXPECT_EQ(first->sequence, 1U);
  ASSERT_EQ(first->devices.size(), 3U);
  EXPECT_EQ(first->node.nvml_library, test::sim_library_path());
  for (const auto& d : first->devices) {
    EXPECT_EQ(d.state, DeviceState::kOk);
    EXPECT_EQ(test::value_of(d, Metric::kUp), 1);
    EXPECT_EQ(test::value_of(d, Metric::kUtilization), 0.7);
  }
  auto second = tick_at(c, 11);
  EXPECT_EQ(second->sequence, 2U);
  EXPECT_EQ(second->timestamp_ms, sim_.ms_at(11));
  EXPECT_EQ(first->timestamp_ms, sim_.ms_at(10)) << "a published snapshot never changes";
  ASSERT_FALSE(second->devices[0].processes.empty());
  EXPECT_EQ(second->devices[0].processes[0].pid, 5001U);

  const auto stats = c.stats();
  EXPECT_EQ(stats.ticks, 2U);
  EXPECT_EQ(stats.device_reads, 6U);
  EXPECT_GT(stats.nvml_time.count(), 0);
  EXPECT_GT(stats.cpu_time.count(), 0);
  EXPECT_GE(stats.wall_time, stats.last_tick_wall);
}

TEST_P(CollectorTest, ALostGpuReportsDownWhileTheOthersGoOn) {
  Collector c(options());
  auto before = tick_at(c, 19);
  EXPECT_EQ(test::value_of(before->devices[1], Metric::kUp), 1);
  auto after = tick_at(c, 21);
  ASSERT_EQ(after->devices.size(), 3U);
  const auto& lost = after->devices[1];
  EXPECT_EQ(lost.state, DeviceState::kLost);
  EXPECT_EQ(test::value_of(lost, Metric::kUp), 0);
  EXPECT_EQ(lost.identity.uuid, before->devices[1].identity.uuid);
  EXPECT_EQ(lost.find(Metric::kTemperature), nullptr) << "a lost GPU reports no stale readings";
  for (int i : {0, 2}) {
    EXPECT_EQ(after->devices[i].state, DeviceState::kOk);
    EXPECT_EQ(test::value_of(after->devices[i], Metric::kUp), 1);
    EXPECT_EQ(after->devices[i].last_read_ms, sim_.ms_at(21));
  }
  EXPECT_TRUE(after->collector_errors.empty()) << "GPU_IS_LOST is a state, not a collector error";
}

TEST_P(CollectorTest, AHungCallMakesThatGpuStaleWithItsLastValuesAndTheOthersFresh) {
  Collector c(options());
  auto before = tick_at(c, 39);
  const double temperature_before = test::value_of(before->devices[2], Metric::kTemperature);

  auto hung = tick_at(c, 41);
  const auto& stale = hung->devices[2];
  EXPECT_EQ(stale.state, DeviceState::kStale);
  EXPECT_EQ(test::value_of(stale, Metric::kUp), 0);
  EXPECT_EQ(test::value_of(stale, Metric::kStale), 1);
  EXPECT_EQ(test::value_of(stale, Metric::kTemperature), temperature_before);
  EXPECT_EQ(stale.last_read_ms, sim_.ms_at(39));
  EXPECT_EQ(hung->devices[0].state, DeviceState::kOk);
  EXPECT_EQ(hung->devices[0].last_read_ms, sim_.ms_at(41));

  auto still = tick_at(c, 42);  // the worker is still inside the call: no new work, still stale
  EXPECT_EQ(still->devices[2].state, DeviceState::kStale);
  EXPECT_EQ(still->devices[0].last_read_ms, sim_.ms_at(42));

  auto recovered = tick_at(c, 71);  // the hang ends at 70 s
  EXPECT_EQ(recovered->devices[2].state, DeviceState::kOk);
  EXPECT_EQ(test::value_of(recovered->devices[2], Metric::kStale), 0);
  EXPECT_EQ(recovered->devices[2].last_read_ms, sim_.ms_at(71));
}

// In lockstep a call inside a hang cannot return before the clock moves, so the collector does not wait for
// the deadline to call the GPU stale (here an hour: the test would time out).
TEST_P(CollectorTest, InLockstepAHungGpuIsStaleWithoutWaitingForTheDeadline) {
  CollectorOptions o = options();
  o.deadline = std::chrono::hours(1);
  Collector c(o);
  tick_at(c, 39);
  for (double t : {41.0, 42.0, 69.0}) {
    auto hung = tick_at(c, t);
    EXPECT_EQ(hung->devices[2].state, DeviceState::kStale) << t;
    EXPECT_EQ(hung->devices[0].state, DeviceState::kOk) << t;
    EXPECT_EQ(hung->devices[0].last_read_ms, sim_.ms_at(t));
  }
  auto recovered = tick_at(c, 70);  // the hang ends at 70 s: the call returns, the GPU is read afresh
  EXPECT_EQ(recovered->devices[2].state, DeviceState::kOk);
  EXPECT_EQ(recovered->devices[2].last_read_ms, sim_.ms_at(70));
}

// In lockstep the event listener takes every event due before the tick reads the GPUs: the XID at 60 s is in
// the snapshot of 60 s, whatever the threads' scheduling.
TEST_P(CollectorTest, InLockstepTheTickAtAnEventsTimeCountsIt) {
  Collector c(options());
  EXPECT_TRUE(tick_at(c, 59)->devices[0].xid_counts.empty());
  const auto at = tick_at(c, 60);
  ASSERT_EQ(at->devices[0].xid_counts.count(48), 1U);
  EXPECT_EQ(at->devices[0].last_xid, 48U);
}

TEST_P(CollectorTest, ShutdownReturnsWhileAWorkerIsStuckInTheDriver) {
  auto c = std::make_unique<Collector>(options());
  tick_at(*c, 41);
  ASSERT_EQ(c->latest()->devices[2].state, DeviceState::kStale);
  const auto start = std::chrono::steady_clock::now();
  c.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

TEST_P(CollectorTest, XidsAreCountedPerCodeAndTheCallbackFiresAtOnce) {
  Collector c(options());
  std::mutex mutex;
  std::condition_variable seen;
  std::vector<std::tuple<std::string, unsigned long long, unsigned long long>> events;
  c.set_event_callback([&](const std::string& uuid, unsigned long long type, unsigned long long data) {
    std::lock_guard lock(mutex);
    events.emplace_back(uuid, type, data);
    seen.notify_all();
  });
  auto before = tick_at(c, 59);
  const std::string uuid = before->devices[0].identity.uuid;
  EXPECT_TRUE(before->devices[0].xid_counts.empty());
  EXPECT_EQ(test::value_of(before->devices[0], Metric::kEccErrors, "uncorrected", "volatile"), 0);

  sim_.advance_to(61);
  {
    std::unique_lock lock(mutex);
    const bool got = seen.wait_for(lock, std::chrono::seconds(10), [&] {
      return std::any_of(events.begin(), events.end(),
                         [](const auto& e) { return std::get<1>(e) == nvmlEventTypeXidCriticalError; });
    });
    ASSERT_TRUE(got) << "no XID event within 10 s of wall time";
    for (const auto& e : events) {
      if (std::get<1>(e) == nvmlEventTypeXidCriticalError) {
        EXPECT_EQ(std::get<0>(e), uuid);
        EXPECT_EQ(std::get<2>(e), 48U);
      }
    }
  }
  auto after = tick_at(c, 62);
  const auto& d = after->devices[0];
  // Every XID the driver delivered is counted (the double-bit error raises XID 48 as well).
  std::uint64_t delivered = 0;
  {
    std::lock_guard lock(mutex);
    for (const auto& e : events) delivered += std::get<1>(e) == nvmlEventTypeXidCriticalError ? 1 : 0;
  }
  ASSERT_EQ(d.xid_counts.count(48), 1U);
  EXPECT_EQ(d.xid_counts.at(48), delivered);
  EXPECT_EQ(d.last_xid, 48U);
  EXPECT_GT(test::value_of(d, Metric::kEccErrors, "uncorrected", "volatile"), 0);
  EXPECT_EQ(test::value_of(d, Metric::kCriticalEvents, "double_bit_ecc"), 1);
  EXPECT_EQ(test::value_of(d, Metric::kCriticalEvents, "single_bit_ecc"), 0);
  EXPECT_TRUE(after->devices[1].xid_counts.empty());
}

class CollectorDriverHang : public ::testing::TestWithParam<bool> {};

TEST_P(CollectorDriverHang, EveryGpuGoesStaleButSnapshotsKeepComing) {
  test::SimScenario scenario(R"(
node: {start: "2025-03-01T12:00:00Z"}
devices:
  - {model: H200, count: 2}
faults:
  - {type: driver_hang, at: 40s, duration: 30s}
)");
  test::Sim sim;
  CollectorOptions o = sim_options();
  o.read_in_turn = GetParam();
  Collector c(o);
  c.clock().sleep_until_ms(sim.ms_at(39));
  c.tick();
  c.clock().sleep_until_ms(sim.ms_at(41));
  c.tick();  // every call, node-wide ones included, now hangs in the driver
  auto hung = c.latest();
  EXPECT_EQ(hung->sequence, 2U);
  ASSERT_EQ(hung->devices.size(), 2U);
  for (const auto& d : hung->devices) {
    EXPECT_EQ(d.state, DeviceState::kStale);
    EXPECT_EQ(d.last_read_ms, sim.ms_at(39));
  }
  c.clock().sleep_until_ms(sim.ms_at(71));
  c.tick();
  for (const auto& d : c.latest()->devices) EXPECT_EQ(d.state, DeviceState::kOk);
}

// Read in turn, a hung GPU ahead of the others sends them to workers of their own: they are read this tick,
// and at the next one the hung GPU, still inside its call on the relay, gets no second read.
TEST_P(CollectorDriverHang, AHungGpuAheadOfTheOthersLeavesThemFresh) {
  test::SimScenario scenario(R"(
node: {start: "2025-03-01T12:00:00Z"}
devices:
  - {model: H200, count: 3}
faults:
  - {type: hung_call, gpu: 0, at: 40s, duration: 30s}
)");
  test::Sim sim;
  CollectorOptions o = sim_options();
  o.read_in_turn = GetParam();
  Collector c(o);
  for (const double at : {41.0, 42.0}) {
    c.clock().sleep_until_ms(sim.ms_at(at));
    c.tick();
    const auto snap = c.latest();
    ASSERT_EQ(snap->devices.size(), 3U);
    EXPECT_EQ(snap->devices[0].state, DeviceState::kStale) << at;
    for (int i : {1, 2}) {
      EXPECT_EQ(snap->devices[i].state, DeviceState::kOk) << "GPU " << i << " at " << at;
      EXPECT_EQ(snap->devices[i].last_read_ms, sim.ms_at(at)) << "GPU " << i << " at " << at;
    }
  }
  c.clock().sleep_until_ms(sim.ms_at(71));
  c.tick();
  for (const auto& d : c.latest()->devices) EXPECT_EQ(d.state, DeviceState::kOk);
}

INSTANTIATE_TEST_SUITE_P(ReadOrder, CollectorTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "InTurn" : "EachOnItsOwn"; });
INSTANTIATE_TEST_SUITE_P(ReadOrder, CollectorDriverHang, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "InTurn" : "EachOnItsOwn"; });

// On a node without faults: an XID (the fixture's GPU falling off the bus at 20 s, which a loaded machine's
// runner may reach before it stops) brings an extra tick, which this cadence check does not count.
TEST(CollectorRun, TicksEveryIntervalOnTheScenarioClock) {
  const test::SimScenario scenario(R"(
node: {hostname: test-node, start: "2025-03-01T12:00:00Z"}
devices:
  - {model: H200, count: 2, workload: {utilization: 70}}
)");
  const test::Sim sim;
  Collector c(sim_options());
  const std::int64_t start = c.clock().now_ms();
  {
    std::jthread runner([&](std::stop_token stop) { c.run(stop); });
    while (c.latest()->sequence < 5) std::this_thread::yield();
  }
  // Ticks land on the interval's grid; on a loaded machine a tick that comes too late is skipped, never
  // stamped off the grid.
  const auto snap = c.latest();
  const std::int64_t since = snap->timestamp_ms - start;
  EXPECT_EQ(since % 1000, 0) << since;
  EXPECT_GE(since, static_cast<std::int64_t>(snap->sequence - 1) * 1000);
}

}  // namespace
}  // namespace gpuwatch

namespace gpuwatch {
namespace {

// An XID wakes run() between intervals: with a 30 s interval, the XID at scenario second 2 is in a snapshot
// long before the second interval would have come. Scaled mode, in wall time.
TEST(CollectorRun, AnXidIsCollectedAtOnceNotAtTheNextInterval) {
  test::SimScenario scenario(R"(
node: {hostname: xid-node, time_scale: 1}
devices:
  - {model: H200, count: 1}
faults:
  - {type: xid, gpu: 0, at: 2s, code: 79}
)");
  setenv("GPUWATCH_SIM_MODE", "scaled", 1);
  unsetenv("GPUWATCH_SIM_EPOCH");  // scenario second 0 is now
  CollectorOptions o = sim_options();
  o.interval = std::chrono::seconds(30);
  Collector c(o);
  const auto started = std::chrono::steady_clock::now();
  std::jthread runner([&](std::stop_token stop) { c.run(stop); });
  bool seen = false;
  while (!seen && std::chrono::steady_clock::now() - started < std::chrono::seconds(20)) {
    const auto snap = c.latest();
    seen = !snap->devices.empty() && snap->devices[0].xid_counts.contains(79);
    if (!seen) std::this_thread::sleep_for(milliseconds(20));
  }
  EXPECT_TRUE(seen) << "the XID waited for the next 30 s interval";
  EXPECT_EQ(c.latest()->sequence, 2U) << "one extra collection, then the cadence";
}

}  // namespace
}  // namespace gpuwatch
