// The per-snapshot detectors: lost and stale GPUs, throttling reasons, ECC and memory repair, the PCIe link,
// the NVLink fabric.
#include <gtest/gtest.h>

#include "detect_fixture.h"
#include "rules/health.h"

namespace gpuwatch::detect {
namespace {

using test::Gpu;
using test::names;
using test::snapshot_at;
using V = std::vector<std::string>;

TEST(GpuLostDetector, LostPagesStaleWaitsItsForDuration) {
  auto det = test::make_detector("gpu_lost");
  Gpu ok(0), lost(3), stale(5);
  lost.state(DeviceState::kLost);
  stale.state(DeviceState::kStale).last_read(10000);
  auto cs = test::evaluate(*det, snapshot_at(40000, {ok, lost, stale}));
  ASSERT_EQ(names(cs), (V{"GpuLost", "GpuStale"}));
  EXPECT_EQ(cs[0].labels.at("gpu"), "3");
  EXPECT_EQ(cs[0].severity, Severity::kPage);
  EXPECT_EQ(cs[1].labels.at("gpu"), "5");
  EXPECT_EQ(cs[1].for_duration, std::chrono::seconds(30));
  EXPECT_NE(cs[1].description.find("30 s old"), std::string::npos) << cs[1].description;
}

TEST(GpuLostDetector, TheKernelLogSaysLostBeforeNvmlDoesUntilTheDriverReloads) {
  auto det = test::make_detector("gpu_lost");
  Gpu g(2);
  kernel::KernelEvent off;
  off.kind = kernel::KernelEventKind::kFallenOffBus;
  off.pci_bus_id = g.bus();
  EXPECT_EQ(names(test::evaluate(*det, snapshot_at(1000, {g}), {off})), (V{"GpuLost"}));
  EXPECT_EQ(names(test::evaluate(*det, snapshot_at(2000, {g}))), (V{"GpuLost"})) << "held";
  kernel::KernelEvent load;
  load.kind = kernel::KernelEventKind::kDriverLoaded;
  EXPECT_TRUE(test::evaluate(*det, snapshot_at(3000, {g}), {load}).empty());
}

TEST(ThrottleDetector, SoftwarePowerCapNeverAlerts) {
  auto det = test::make_detector("throttle");
  Gpu g(7);
  g.set(Metric::kClockEventActive, 1, "sw_power_cap").set(Metric::kPower, 700);
  EXPECT_TRUE(test::evaluate(*det, snapshot_at(1000, {g})).empty());
}

TEST(ThrottleDetector, TheMostSpecificReasonIsRaised) {
  auto det = test::make_detector("throttle");
  Gpu brake(7), thermal(0), sw(1), warm(2);
  brake.set(Metric::kClockEventActive, 1, "hw_power_brake_slowdown")
      .set(Metric::kClockEventActive, 1, "hw_slowdown");
  thermal.set(Metric::kClockEventActive, 1, "hw_thermal_slowdown")
      .set(Metric::kClockEventActive, 1, "sw_thermal_slowdown")
      .set(Metric::kTemperature, 91);
  sw.set(Metric::kClockEventActive, 1, "sw_thermal_slowdown");
  warm.set(Metric::kTemperature, 85);
  auto cs = test::evaluate(*det, snapshot_at(1000, {brake, thermal, sw, warm}));
  ASSERT_EQ(names(cs), (V{"GpuPowerBrake", "GpuThermalSlowdown", "GpuSoftwareThermalSlowdown",
                          "GpuTemperatureNearSlowdown"}));
  EXPECT_EQ(cs[0].severity, Severity::kPage);
  EXPECT_EQ(cs[1].severity, Severity::kPage);
  EXPECT_NE(cs[1].description.find("temperature 91 C (slowdown at 89 C)"), std::string::npos)
      << cs[1].description;
  EXPECT_EQ(cs[2].severity, Severity::kTicket);
  EXPECT_EQ(cs[2].for_duration, std::chrono::minutes(5));
  EXPECT_EQ(cs[3].severity, Severity::kTicket);
  EXPECT_EQ(cs[3].labels.at("gpu"), "2");
}

TEST(ThrottleDetector, ATemperaturePastTheThresholdWithoutAReasonIsAboveItNotNear) {
  auto det = test::make_detector("throttle");
  Gpu hot(0), warm(1);
  hot.set(Metric::kTemperature, 93);  // slowdown at 89 C, and NVML reports no throttling reason
  warm.set(Metric::kTemperature, 86);
  auto cs = test::evaluate(*det, snapshot_at(1000, {hot, warm}));
  ASSERT_EQ(names(cs), (V{"GpuTemperatureNearSlowdown", "GpuTemperatureNearSlowdown"}));
  EXPECT_NE(cs[0].summary.find("4 C above its slowdown threshold"), std::string::npos) << cs[0].summary;
  EXPECT_NE(cs[1].summary.find("3 C below its slowdown threshold"), std::string::npos) << cs[1].summary;
}

TEST(EccDetector, DoubleBitErrorPagesAndPendingRemapTickets) {
  auto det = test::make_detector("ecc");
  Gpu g(2);
  g.set(Metric::kEccErrors, 1, "uncorrected", "volatile").set(Metric::kRemappedRowsPending, 1);
  auto cs = test::evaluate(*det, snapshot_at(1000, {g}));
  ASSERT_EQ(names(cs), (V{"GpuEccUncorrectable", "GpuMemoryRepairPending"}));
  EXPECT_EQ(cs[0].severity, Severity::kPage);
  EXPECT_EQ(cs[1].severity, Severity::kTicket);
}

TEST(EccDetector, CorrectedTrickleIsQuietAStormTickets) {
  auto det = test::make_detector("ecc");
  Gpu g(2);
  // One corrected error every 20 minutes for a day: never a storm.
  for (int i = 0; i <= 72; ++i) {
    g.set(Metric::kEccErrors, i, "corrected", "volatile");
    EXPECT_TRUE(test::evaluate(*det, snapshot_at(i * 20LL * 60000, {g})).empty()) << i;
  }
  // Then 4 a minute: a storm once 10 have come within 10 minutes.
  std::vector<Condition> cs;
  for (int m = 1; m <= 4; ++m) {
    g.set(Metric::kEccErrors, 72 + 4 * m, "corrected", "volatile");
    cs = test::evaluate(*det, snapshot_at(72 * 20LL * 60000 + m * 60000LL, {g}));
  }
  ASSERT_EQ(names(cs), (V{"GpuEccCorrectedStorm"}));
  EXPECT_NE(cs[0].description.find("16 corrected"), std::string::npos) << cs[0].description;
}

TEST(EccDetector, RemapFailureAndExhaustedRepair) {
  auto det = test::make_detector("ecc");
  Gpu g(1);
  g.set(Metric::kRemappedRowsFailure, 1).set(Metric::kRemappedRows, 512, "uncorrectable");
  EXPECT_EQ(names(test::evaluate(*det, snapshot_at(1000, {g}))),
            (V{"GpuRowRemapFailed", "GpuMemoryRepairExhausted"}));
}

TEST(PcieDetector, ReplaysOverTheGen5x16BudgetTicket) {
  auto det = test::make_detector("pcie");
  Gpu quiet(3), noisy(4);
  std::vector<Condition> cs;
  for (int s = 0; s <= 120; s += 10) {
    quiet.set(Metric::kPcieReplays, s / 10);  // 6/min: within 30.72/min
    noisy.set(Metric::kPcieReplays, 3 * s);   // 180/min
    cs = test::evaluate(*det, snapshot_at(s * 1000LL, {quiet, noisy}));
  }
  ASSERT_EQ(names(cs), (V{"GpuPcieReplayRate"}));
  EXPECT_EQ(cs[0].labels.at("gpu"), "4");
  EXPECT_NE(cs[0].description.find("180.0 replays/min"), std::string::npos) << cs[0].description;
  EXPECT_NE(cs[0].description.find("30.72/min"), std::string::npos) << cs[0].description;
}

TEST(PcieDetector, DowntrainAlertsOnlyWhileBusy) {
  auto det = test::make_detector("pcie");
  Gpu idle(1), busy(4);
  idle.set(Metric::kPcieLinkGeneration, 1).set(Metric::kUtilization, 0);  // power saving
  busy.set(Metric::kPcieLinkWidth, 8);
  auto cs = test::evaluate(*det, snapshot_at(1000, {idle, busy}));
  ASSERT_EQ(names(cs), (V{"GpuPcieLinkDegraded"}));
  EXPECT_EQ(cs[0].labels.at("gpu"), "4");
  EXPECT_NE(cs[0].description.find("gen 5 x8, maximum gen 5 x16"), std::string::npos) << cs[0].description;
}

TEST(PcieDetector, UncorrectableAerFromKernelLogOrSysfsPages) {
  auto det = test::make_detector("pcie");
  Gpu a(0), b(1);
  kernel::KernelEvent aer;
  aer.kind = kernel::KernelEventKind::kAerUncorrected;
  aer.pci_bus_id = a.bus();
  aer.message = "pcieport 0000:00:01.0: AER: Uncorrected (Fatal) error received: " + a.bus();
  auto s1 = snapshot_at(1000, {a, b});
  DetectionInput in1{s1, {aer}, {{b.bus(), {5, 0, 0}}}, {}, {}, {}};
  std::vector<Condition> cs;
  det->evaluate(in1, cs);
  ASSERT_EQ(names(cs), (V{"GpuPcieUncorrectableError"}));
  EXPECT_EQ(cs[0].labels.at("gpu"), "0");
  auto s2 = snapshot_at(2000, {a, b});
  DetectionInput in2{s2, {}, {{b.bus(), {9, 1, 0}}}, {}, {}, {}};
  cs.clear();
  det->evaluate(in2, cs);
  ASSERT_EQ(names(cs), (V{"GpuPcieUncorrectableError", "GpuPcieUncorrectableError"}));
  EXPECT_EQ(cs[1].labels.at("gpu"), "1");
  EXPECT_NE(cs[1].description.find("1 non-fatal"), std::string::npos) << cs[1].description;
}

TEST(FabricDetector, AFailedRegistrationPagesAnUnfinishedOneWaitsAndTheVerdictAgrees) {
  auto det = test::make_detector("fabric");
  Gpu registered(0), failed(1), registering(2), no_fabric(3);
  registered.set(Metric::kFabricState, 3).set(Metric::kFabricRegistrationFailed, 0);
  failed.set(Metric::kFabricState, 3).set(Metric::kFabricRegistrationFailed, 1);
  registering.set(Metric::kFabricState, 2).set(Metric::kFabricRegistrationFailed, 0);
  const Snapshot snap = snapshot_at(1000, {registered, failed, registering, no_fabric});
  auto cs = test::evaluate(*det, snap);
  ASSERT_EQ(names(cs), (V{"GpuFabricRegistrationFailed", "GpuFabricNotRegistered"}));
  EXPECT_EQ(cs[0].labels.at("gpu"), "1");
  EXPECT_EQ(cs[0].severity, Severity::kPage);
  EXPECT_EQ(cs[1].labels.at("gpu"), "2");
  EXPECT_EQ(cs[1].severity, Severity::kTicket);
  EXPECT_EQ(cs[1].for_duration, std::chrono::minutes(5));
  // The same GPUs in the health verdict: critical for the page, a warning for the ticket, else healthy.
  const HealthVerdict expected[] = {HealthVerdict::kHealthy, HealthVerdict::kCritical,
                                    HealthVerdict::kWarning, HealthVerdict::kHealthy};
  for (std::size_t i = 0; i < snap.devices.size(); ++i)
    EXPECT_EQ(assess_health(snap.devices[i]).verdict, expected[i]) << "GPU " << i;
  DetectorSettings slow;
  test::tune(slow, "fabric.registering_for", std::chrono::minutes(15));
  EXPECT_EQ(test::evaluate(*test::make_detector("fabric", slow), snap)[1].for_duration,
            std::chrono::minutes(15));
}

}  // namespace
}  // namespace gpuwatch::detect
