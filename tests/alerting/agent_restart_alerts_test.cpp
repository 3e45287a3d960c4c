// Alerts that survive the agent: an agent on the simulator raises an XID alert (an event alert, held
// detect.xid.hold after the XID) and a PCIe downtrain alert (with a `for`), is killed with SIGKILL and
// started again on its data dir. A real Alertmanager must hold each alert exactly once with its original
// startsAt, nothing resolved and fired again (its webhook receiver records every notification), and the XID
// alert must resolve when its holding time, counted from the original XID, ends.
//
// The link alert's `for` (25 s) is longer than what Alertmanager keeps an alert without news (20 s): an agent
// that sent it back to pending would let it end there and fire again with a new start.
//
// The agent starts in lockstep with the scenario's epoch kReplayed s in the past (both faults begin in that
// past), and is restarted scaled at 1x from the same epoch, so scenario time goes on where it stopped.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <csignal>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "../cli/run_process.h"
#include "alertmanager_process.h"
#include "core/rfc3339.h"
#include "recording_server.h"
#include "temp_dir.h"

namespace gpuwatch::alerting {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;
using store::test::TempDir;

const std::string kBinary = std::string(GPUWATCH_BINARY_DIR) + "/gpuwatch";
const std::string kScenario = std::string(GPUWATCH_SOURCE_DIR) + "/tests/alerting/restart-faults-2xh100.yaml";
constexpr std::time_t kReplayed = 60;  // scenario seconds behind the clock at the start
constexpr std::time_t kXidAt = 10;     // the scenario's XID
constexpr std::time_t kHold = 110;     // --detect.xid.hold: the XID alert ends at epoch + 120 s
const std::set<std::string> kWatched{"GpuXidCritical", "GpuPcieLinkDegraded"};

// alertname -> how many alerts of that name Alertmanager holds, and the startsAt of the last one.
struct Held {
  std::map<std::string, int> count;
  std::map<std::string, std::string> starts_at;
};

Held held(const testing::AlertmanagerProcess& am) {
  Held out;
  const nlohmann::json alerts = am.alerts();
  if (!alerts.is_array()) return out;
  for (const auto& a : alerts) {
    const std::string name = a["labels"].value("alertname", "");
    if (!kWatched.count(name)) continue;
    ++out.count[name];
    out.starts_at[name] = a.value("startsAt", "");
  }
  return out;
}

const std::map<std::string, int> kBothOnce{{"GpuPcieLinkDegraded", 1}, {"GpuXidCritical", 1}};

Held wait_for(const testing::AlertmanagerProcess& am, const std::map<std::string, int>& expected,
              std::chrono::steady_clock::time_point limit) {
  Held last = held(am);
  while (last.count != expected && std::chrono::steady_clock::now() < limit) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // Alertmanager's pace, in wall time
    last = held(am);
  }
  return last;
}

std::unique_ptr<test::BackgroundProcess> start_agent(const std::string& mode, std::time_t epoch, int port,
                                                     const std::string& data_dir, const std::string& am_url) {
  return std::make_unique<test::BackgroundProcess>(
      std::vector<std::string>{kBinary,
                               "agent",
                               "--listen",
                               "127.0.0.1:" + std::to_string(port),
                               "--sim-scenario",
                               kScenario,
                               "--data-dir",
                               data_dir,
                               "--kmsg",
                               "",
                               "--interval",
                               "1s",
                               "--alert-resend-interval",
                               "5s",
                               "--alertmanager-url",
                               am_url,
                               "--detect.xid.hold",
                               std::to_string(kHold) + "s",
                               "--detect.pcie.downtrain-for",
                               "10s"},
      std::map<std::string, std::string>{{"GPUWATCH_SIM_MODE", mode},
                                         {"GPUWATCH_SIM_EPOCH", std::to_string(epoch)}});
}

TEST(AgentRestart, AlertmanagerHoldsEachAlertOnceWithItsStartAndTheXidEndsOnTime) {
  TempDir dir;
  testing::RecordingServer webhook;
  fs::create_directories(dir.path() + "/alertmanager");
  testing::AlertmanagerProcess am(dir.path() + "/alertmanager", webhook.url() + "/hook");
  ASSERT_TRUE(am.start());
  const int port = testing::free_port();
  const std::string data_dir = dir.path() + "/agent";

  const std::time_t epoch = std::time(nullptr) - kReplayed;
  const auto started = std::chrono::steady_clock::now();
  auto agent = start_agent("lockstep", epoch, port, data_dir, am.url());
  ASSERT_EQ(test::wait_for_listening(*agent, seconds(30)).port, port) << agent->stderr_text();
  const Held before = wait_for(am, kBothOnce, started + seconds(20));
  ASSERT_EQ(before.count, kBothOnce) << agent->stderr_text();

  agent->signal(SIGKILL);
  agent->wait_exit(seconds(10));
  agent = start_agent("scaled", epoch, port, data_dir, am.url());
  ASSERT_EQ(test::wait_for_listening(*agent, seconds(30)).port, port) << agent->stderr_text();
  // Past the validity of what the killed agent sent (4 resend intervals, 20 s): an alert the restarted one
  // did not send again has ended in Alertmanager by then, and a duplicate or a re-fired one has arrived.
  std::this_thread::sleep_for(seconds(22));
  ASSERT_LT(std::time(nullptr), epoch + kXidAt + kHold)
      << "the machine was too slow to check before the XID ended";
  const Held after = held(am);
  EXPECT_EQ(after.count, kBothOnce) << agent->stderr_text();
  EXPECT_EQ(after.starts_at, before.starts_at) << "no alert ended and began again across the restart";

  // The XID alert ends at its original expiry; the link alert holds on.
  const Held ended =
      wait_for(am, {{"GpuPcieLinkDegraded", 1}}, started + seconds(kXidAt + kHold - kReplayed + 30));
  EXPECT_EQ(ended.count, (std::map<std::string, int>{{"GpuPcieLinkDegraded", 1}})) << agent->stderr_text();
  EXPECT_EQ(ended.starts_at.at("GpuPcieLinkDegraded"), before.starts_at.at("GpuPcieLinkDegraded"));

  // Every notification Alertmanager sent: each alert with one start, the link alert never resolved, the XID
  // alert resolved once, at the end of the hold counted from the XID (not from the restart, not when the
  // killed agent's last send expired).
  ASSERT_TRUE(webhook.wait_for(
      [](const std::vector<nlohmann::json>& bodies) {
        for (const auto& b : bodies)
          for (const auto& a : b.value("alerts", nlohmann::json::array()))
            if (a["labels"].value("alertname", "") == "GpuXidCritical" && a.value("status", "") == "resolved")
              return true;
        return false;
      },
      seconds(20)));
  // Alertmanager's API and its webhook spell the same time differently (".100Z", ".1Z"): compared as times.
  const auto ms = [](const std::string& text) { return parse_rfc3339_ms(text).value_or(-1); };
  std::map<std::string, std::set<std::int64_t>> starts;
  std::set<std::string> xid_ends;
  for (const auto& b : webhook.bodies()) {
    for (const auto& a : b.value("alerts", nlohmann::json::array())) {
      const std::string name = a["labels"].value("alertname", "");
      if (!kWatched.count(name)) continue;
      starts[name].insert(ms(a.value("startsAt", "")));
      if (a.value("status", "") != "resolved") continue;
      EXPECT_EQ(name, "GpuXidCritical") << "resolved: " << a.dump();
      xid_ends.insert(a.value("endsAt", ""));
    }
  }
  EXPECT_EQ(starts["GpuXidCritical"], std::set<std::int64_t>{ms(before.starts_at.at("GpuXidCritical"))});
  EXPECT_EQ(starts["GpuPcieLinkDegraded"],
            std::set<std::int64_t>{ms(before.starts_at.at("GpuPcieLinkDegraded"))});
  ASSERT_EQ(xid_ends.size(), 1u);
  const auto end_ms = parse_rfc3339_ms(*xid_ends.begin());
  ASSERT_TRUE(end_ms);
  const auto start_ms = parse_rfc3339_ms(before.starts_at.at("GpuXidCritical"));
  ASSERT_TRUE(start_ms);
  // Resolved at the first evaluation after start + hold (1 s interval; a loaded machine may lag a few).
  EXPECT_GE(*end_ms, *start_ms + kHold * 1000);
  EXPECT_LE(*end_ms, *start_ms + kHold * 1000 + 5000) << *xid_ends.begin();
}

}  // namespace
}  // namespace gpuwatch::alerting
