// Shared PCIe contention: two GPUs together filling the switch uplink they share raise one ticket per
// uplink and direction, naming the GPUs, the arrival and the slowed; one GPU filling it alone, GPUs under
// capacity, a one-sample spike, GPUs that share no uplink, and an uplink of unknown speed raise nothing;
// the condition ends when the traffic falls.
#include <gtest/gtest.h>

#include <functional>

#include "detect_fixture.h"

namespace gpuwatch::detect {
namespace {

using test::Gpu;
using test::snapshot_at;

constexpr double kGB = 1e9;

// GPUs 0 and 1 (buses 0000:18:00.0, 0000:19:00.0) below a Gen5 x16 uplink (63.0 GB/s each way); GPU 2
// below a root port of its own.
kernel::SharedPcieLink uplink(double gt_per_s = 32.0, unsigned width = 16) {
  return {"0000:01:00.0", "0000:00:01.0", {gt_per_s, width}, {32.0, 16}, {"0000:18:00.0", "0000:19:00.0"}};
}

struct Traffic {
  double rx = 0, tx = 0;  // bytes per second
};
// What GPU `gpu` moves at second `t`.
using Script = std::function<Traffic(unsigned gpu, int t)>;

// Three GPUs, a snapshot every 5 s from 0 to `end` s; the conditions of the last one.
std::vector<Condition> run(Detector& det, int end, const Script& script,
                           std::vector<kernel::SharedPcieLink> links = {uplink()}) {
  std::vector<Condition> last;
  for (int t = 0; t <= end; t += 5) {
    std::vector<Gpu> gpus;
    for (unsigned i = 0; i < 3; ++i) {
      const Traffic x = script(i, t);
      Gpu g(i);
      g.set(Metric::kPcieRx, x.rx).set(Metric::kPcieTx, x.tx);
      gpus.push_back(std::move(g));
    }
    const Snapshot s = snapshot_at(t * 1000LL, gpus);
    DetectionInput in{s, {}, {}, {}, {}, links};
    last.clear();
    det.evaluate(in, last);
  }
  return last;
}

// GPU0 reads 33 GB/s all along; from 300 s GPU1 reads 32 GB/s and GPU0 drops to 24.
Traffic arrival_at_300(unsigned gpu, int t) {
  if (gpu == 0) return {t < 300 ? 33 * kGB : 24 * kGB, 1 * kGB};
  if (gpu == 1) return {t < 300 ? 0.1 * kGB : 32 * kGB, 1 * kGB};
  return {40 * kGB, 1 * kGB};  // GPU 2 is busy too, but below its own root port
}

TEST(PcieContention, TwoGpusFillingTheirUplinkRaiseATicketNamingArrivalAndSlowed) {
  auto det = test::make_detector("pcie_contention");
  const auto cs = run(*det, 600, arrival_at_300);
  ASSERT_EQ(test::names(cs), (std::vector<std::string>{"GpuPcieContention"}));
  const auto& c = cs[0];
  EXPECT_EQ(c.severity, Severity::kTicket);
  EXPECT_EQ(c.labels, (std::map<std::string, std::string>{{"pcie_link", "0000:01:00.0"},
                                                          {"direction", "host_to_device"}}));
  EXPECT_EQ(c.for_duration, std::chrono::minutes(3));
  EXPECT_NE(c.summary.find("GPUs 0, 1 share the full PCIe uplink of switch port 0000:01:00.0: 56.0 GB/s of "
                           "63.0 GB/s host to device"),
            std::string::npos)
      << c.summary;
  EXPECT_NE(c.description.find("GPU 0: 33.0 GB/s -> 24.0 GB/s (slowed by 27%)"), std::string::npos)
      << c.description;
  EXPECT_NE(c.description.find("GPU 1: 0.1 GB/s -> 32.0 GB/s (arrived"), std::string::npos) << c.description;
  EXPECT_EQ(c.description.find("below its"), std::string::npos) << "the uplink trains at its maximum";
}

TEST(PcieContention, TheUplinkFillsOnlyOnceTheMinutesMeanDoes) {
  auto det = test::make_detector("pcie_contention");
  // 40 s after the arrival the newest minute's mean is still under 80% of the uplink.
  EXPECT_TRUE(run(*det, 340, arrival_at_300).empty());
}

TEST(PcieContention, EachDirectionIsItsOwnAlert) {
  auto det = test::make_detector("pcie_contention");
  const auto cs = run(*det, 600, [](unsigned gpu, int) {
    return gpu < 2 ? Traffic{5 * kGB, 27 * kGB} : Traffic{};  // checkpoints written out by both
  });
  ASSERT_EQ(cs.size(), 1U);
  EXPECT_EQ(cs[0].labels.at("direction"), "device_to_host");
  EXPECT_NE(cs[0].summary.find("54.0 GB/s of 63.0 GB/s device to host"), std::string::npos) << cs[0].summary;
}

TEST(PcieContention, OneGpuFillingTheUplinkAloneIsNoContest) {
  auto det = test::make_detector("pcie_contention");
  EXPECT_TRUE(run(*det, 600, [](unsigned gpu, int) {
                return Traffic{gpu == 0 ? 54 * kGB : 4 * kGB, 0};  // GPU1's 4 GB/s is under 15% of the uplink
              }).empty());
}

TEST(PcieContention, BusyUnderCapacityIsHealthy) {
  auto det = test::make_detector("pcie_contention");
  EXPECT_TRUE(run(*det, 600, [](unsigned gpu, int) { return Traffic{gpu < 2 ? 24 * kGB : 0, 0}; }).empty());
}

TEST(PcieContention, AOneSampleSpikeDoesNotFillTheUplink) {
  auto det = test::make_detector("pcie_contention");
  EXPECT_TRUE(run(*det, 600, [](unsigned gpu, int t) {
                return Traffic{gpu < 2 ? (t % 60 == 0 ? 60 * kGB : 20 * kGB) : 0, 0};
              }).empty());
}

TEST(PcieContention, SilentWithoutTopologyOrWithAnUnknownSpeed) {
  auto det = test::make_detector("pcie_contention");
  EXPECT_TRUE(run(*det, 600, arrival_at_300, {}).empty()) << "no shared links known";
  auto unknown = test::make_detector("pcie_contention");
  EXPECT_TRUE(run(*unknown, 600, arrival_at_300, {uplink(0, 0)}).empty()) << "capacity unknown";
}

TEST(PcieContention, ADowntrainedUplinkFillsSoonerAndSaysSo) {
  auto det = test::make_detector("pcie_contention");
  // 14 GB/s each fill a Gen4 x8 uplink (15.75 GB/s); at Gen5 x16 it would be a quarter full.
  const auto cs = run(*det, 600,
                      [](unsigned gpu, int) {
                        return Traffic{gpu < 2 ? 7 * kGB : 0, 0};
                      },
                      {uplink(16.0, 8)});
  ASSERT_EQ(cs.size(), 1U);
  EXPECT_NE(cs[0].description.find("the uplink runs at Gen4 x8, below its Gen5 x16 maximum"),
            std::string::npos)
      << cs[0].description;
}

TEST(PcieContention, EndsWhenTheTrafficFalls) {
  const Script falls_at_600 = [](unsigned gpu, int t) {
    return t < 600 ? arrival_at_300(gpu, t) : Traffic{10 * kGB, 0};
  };
  auto full = test::make_detector("pcie_contention");
  EXPECT_FALSE(run(*full, 595, falls_at_600).empty());
  auto after = test::make_detector("pcie_contention");
  EXPECT_TRUE(run(*after, 720, falls_at_600).empty());
}

}  // namespace
}  // namespace gpuwatch::detect
