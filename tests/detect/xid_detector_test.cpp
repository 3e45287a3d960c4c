// XIDs by code from NVML counts and kernel-log lines: critical codes page, application codes ticket, Ctrl-C
// codes only when they repeat, the two sources never double count, and alerts expire after the hold window.
#include <gtest/gtest.h>

#include "detect_fixture.h"

namespace gpuwatch::detect {
namespace {

using test::Gpu;
using test::snapshot_at;

kernel::KernelEvent xid_line(const std::string& bus, unsigned code, unsigned pid, std::string name) {
  kernel::KernelEvent ev;
  ev.kind = kernel::KernelEventKind::kXid;
  ev.pci_bus_id = bus;
  ev.xid = code;
  ev.pid = pid;
  ev.process = std::move(name);
  return ev;
}

TEST(XidDetector, CriticalXidPagesWithMeaningAndAction) {
  auto det = test::make_detector("xid");
  Gpu g0(0), g2(2);
  g2.xid(48, 1);
  auto cs = test::evaluate(*det, snapshot_at(1000, {g0, g2}));
  ASSERT_EQ(cs.size(), 1U);
  EXPECT_EQ(cs[0].alertname, "GpuXidCritical");
  EXPECT_EQ(cs[0].severity, Severity::kPage);
  EXPECT_EQ(cs[0].labels.at("gpu"), "2");
  EXPECT_EQ(cs[0].labels.at("uuid"), "GPU-00000002");
  EXPECT_EQ(cs[0].labels.at("xid"), "48");
  EXPECT_NE(cs[0].summary.find("double-bit ECC"), std::string::npos) << cs[0].summary;
  EXPECT_NE(cs[0].action.find("reset"), std::string::npos) << cs[0].action;
}

TEST(XidDetector, KernelLineAddsPidAndProcessAndIsNotCountedTwice) {
  auto det = test::make_detector("xid");
  Gpu g6(6);
  // The kernel log is read first; NVML's count of the same XID arrives one tick later.
  auto first = test::evaluate(*det, snapshot_at(1000, {g6}), {xid_line(g6.bus(), 13, 4242, "python3")});
  ASSERT_EQ(first.size(), 1U);
  EXPECT_EQ(first[0].alertname, "GpuXidApplication");
  EXPECT_EQ(first[0].severity, Severity::kTicket);
  EXPECT_EQ(first[0].labels.at("pid"), "4242");
  EXPECT_EQ(first[0].labels.at("process"), "python3");
  g6.xid(13, 1);
  auto second = test::evaluate(*det, snapshot_at(2000, {g6}));
  ASSERT_EQ(second.size(), 1U);
  EXPECT_NE(second[0].description.find("1 time(s)"), std::string::npos) << second[0].description;
}

TEST(XidDetector, CtrlCXidsAloneAreSilentButRepeatsTicket) {
  auto det = test::make_detector("xid");
  Gpu g(1);
  g.xid(43, 1).xid(45, 1);
  EXPECT_TRUE(test::evaluate(*det, snapshot_at(1000, {g})).empty());
  g.xid(43, 3);
  auto cs = test::evaluate(*det, snapshot_at(60000, {g}));
  ASSERT_EQ(cs.size(), 1U);
  EXPECT_EQ(cs[0].alertname, "GpuXidApplication");
  EXPECT_EQ(cs[0].labels.at("xid"), "43");
}

TEST(XidDetector, RepeatingApplicationXidPagesAndOldOnesExpire) {
  DetectorSettings s;
  test::tune(s, "xid.hold", std::chrono::minutes(30));
  auto det = test::make_detector("xid", s);
  Gpu g(3);
  for (std::uint64_t n = 1; n <= 3; ++n) {
    g.xid(31, n);
    test::evaluate(*det, snapshot_at(static_cast<std::int64_t>(n) * 60000, {g}));
  }
  auto cs = test::evaluate(*det, snapshot_at(4 * 60000, {g}));
  ASSERT_EQ(cs.size(), 1U);
  EXPECT_EQ(cs[0].alertname, "GpuXidRepeating");
  EXPECT_EQ(cs[0].severity, Severity::kPage);
  // 12 minutes on, the repeats are out of the 10-minute window: a ticket again.
  cs = test::evaluate(*det, snapshot_at(15 * 60000, {g}));
  ASSERT_EQ(cs.size(), 1U);
  EXPECT_EQ(cs[0].alertname, "GpuXidApplication");
  // Past the hold, nothing.
  EXPECT_TRUE(test::evaluate(*det, snapshot_at(40 * 60000, {g})).empty());
}

TEST(XidDetector, XidsFromBeforeTheAgentStartedSaySo) {
  auto det = test::make_detector("xid");
  Gpu g(4);
  auto ev = xid_line(g.bus(), 79, 0, "");
  ev.pid.reset();
  ev.before_start = true;
  auto cs = test::evaluate(*det, snapshot_at(1000, {g}), {ev});
  ASSERT_EQ(cs.size(), 1U);
  EXPECT_EQ(cs[0].labels.at("xid"), "79");
  EXPECT_NE(cs[0].description.find("before gpuwatch started"), std::string::npos) << cs[0].description;
  EXPECT_EQ(cs[0].labels.count("pid"), 0U);
}

TEST(XidDetector, UnknownCodesAreHardwareTickets) {
  auto det = test::make_detector("xid");
  Gpu g(0);
  g.xid(999, 1);
  auto cs = test::evaluate(*det, snapshot_at(1000, {g}));
  ASSERT_EQ(cs.size(), 1U);
  EXPECT_EQ(cs[0].alertname, "GpuXidHardware");
  EXPECT_EQ(cs[0].severity, Severity::kTicket);
}

}  // namespace
}  // namespace gpuwatch::detect
