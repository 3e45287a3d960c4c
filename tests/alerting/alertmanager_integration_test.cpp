// gpuwatch's delivery against a real Alertmanager: alerts arrive with the fingerprints gpuwatch computed,
// are grouped and resolved by Alertmanager's routing (observed at a webhook receiver the test runs), and are
// delivered after an Alertmanager outage and after an agent restart with alerts still queued.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "alerting/alerting_service.h"
#include "alertmanager_process.h"
#include "recording_server.h"

namespace gpuwatch::alerting {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

std::int64_t wall_ms() {
  return std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Condition cond(const std::string& alertname, const std::string& gpu) {
  Condition c;
  c.alertname = alertname;
  c.severity = Severity::kPage;
  c.labels = {{"gpu", gpu}, {"uuid", "GPU-" + gpu}};
  c.summary = alertname + " on GPU " + gpu;
  c.action = "see the runbook";
  return c;
}

// Webhook messages of one status whose alerts carry the given alertname.
std::vector<nlohmann::json> messages(const std::vector<nlohmann::json>& bodies, const std::string& status,
                                     const std::string& alertname) {
  std::vector<nlohmann::json> out;
  for (const auto& b : bodies) {
    if (b.value("status", "") == status && b["groupLabels"].value("alertname", "") == alertname)
      out.push_back(b);
  }
  return out;
}

class AlertmanagerIntegration : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpuwatch-am-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    am_ = std::make_unique<testing::AlertmanagerProcess>(dir_.string(), hook_.url() + "/hook");
    ASSERT_TRUE(am_->start());
  }
  void TearDown() override {
    am_.reset();
    fs::remove_all(dir_);
  }
  std::unique_ptr<AlertingService> service() {
    AlertingOptions o;
    o.engine.hostname = "node7";
    o.alertmanager_url = am_->url();
    o.data_dir = (dir_ / "agent").string();
    o.external_url = "http://node7:19400";
    o.retry = RetryPolicy{milliseconds{50}, milliseconds{300}};
    o.resend_interval = std::chrono::seconds(2);
    return std::make_unique<AlertingService>(o, wall_ms);
  }
  static std::uint64_t counter(const AlertingService& s, const std::string& family) {
    std::string text;
    s.append_metrics(text, ExpositionFormat::kText004);
    const std::string prefix = family + "{receiver=\"alertmanager\"} ";
    const auto at = text.find(prefix);
    return at == std::string::npos ? 0 : std::stoull(text.substr(at + prefix.size()));
  }

  fs::path dir_;
  testing::RecordingServer hook_;
  std::unique_ptr<testing::AlertmanagerProcess> am_;
};

TEST_F(AlertmanagerIntegration, AlertsArriveGroupAndResolve) {
  auto s = service();
  const std::vector<Condition> firing{cond("GpuXidCritical", "3"), cond("GpuXidCritical", "4"),
                                      cond("GpuLost", "5")};
  s->evaluate(firing, wall_ms());
  // Grouped by alertname and severity: both XID alerts in one message.
  ASSERT_TRUE(hook_.wait_for([](const auto& b) {
    const auto m = messages(b, "firing", "GpuXidCritical");
    return !m.empty() && m.back()["alerts"].size() == 2;
  })) << "webhook got: "
      << nlohmann::json(hook_.bodies()).dump();
  ASSERT_TRUE(hook_.wait_for([](const auto& b) { return !messages(b, "firing", "GpuLost").empty(); }));

  // Alertmanager computed the same fingerprints as gpuwatch.
  const auto in_am = am_->alerts();
  ASSERT_TRUE(in_am.is_array());
  ASSERT_EQ(in_am.size(), 3u);
  std::set<std::string> ours, theirs;
  for (const auto& a : s->alerts()) ours.insert(fingerprint_hex(a.fingerprint));
  for (const auto& a : in_am) theirs.insert(a["fingerprint"].get<std::string>());
  EXPECT_EQ(ours, theirs);
  const auto& one = in_am[0];
  EXPECT_EQ(one["labels"]["hostname"], "node7");
  EXPECT_EQ(one["generatorURL"], "http://node7:19400/api/v1/alerts");
  EXPECT_EQ(one["status"]["state"], "active");

  // GPU 4 recovers, the rest later: resolutions arrive through Alertmanager.
  s->evaluate(std::vector{firing[0], firing[2]}, wall_ms());
  ASSERT_TRUE(hook_.wait_for([](const auto& b) {
    for (const auto& m : messages(b, "firing", "GpuXidCritical")) {
      for (const auto& a : m["alerts"]) {
        if (a["labels"]["gpu"] == "4" && a["status"] == "resolved") return true;
      }
    }
    return false;
  }));
  s->evaluate({}, wall_ms());
  ASSERT_TRUE(hook_.wait_for([](const auto& b) {
    return !messages(b, "resolved", "GpuXidCritical").empty() && !messages(b, "resolved", "GpuLost").empty();
  }));
  EXPECT_GE(counter(*s, "gpuwatch_alerts_sent_total"), 5u);
}

TEST_F(AlertmanagerIntegration, AlertsDuringAnOutageAreDeliveredWhenItReturns) {
  auto s = service();
  am_->stop();
  s->evaluate(std::vector{cond("GpuLost", "2")}, wall_ms());
  // The agent keeps evaluating while deliveries fail.
  for (int i = 0; i < 100 && counter(*s, "gpuwatch_alerts_delivery_failures_total") < 2; ++i) {
    s->evaluate(std::vector{cond("GpuLost", "2")}, wall_ms());
    std::this_thread::sleep_for(milliseconds{50});
  }
  EXPECT_GE(counter(*s, "gpuwatch_alerts_delivery_failures_total"), 2u);
  EXPECT_EQ(counter(*s, "gpuwatch_alerts_queued"), 1u);
  ASSERT_TRUE(am_->start());
  ASSERT_TRUE(hook_.wait_for([](const auto& b) { return !messages(b, "firing", "GpuLost").empty(); }));
  EXPECT_EQ(messages(hook_.bodies(), "firing", "GpuLost")[0]["alerts"][0]["labels"]["gpu"], "2");
}

TEST_F(AlertmanagerIntegration, QueuedAlertsAreDeliveredAfterAnAgentRestart) {
  am_->stop();
  {
    auto before = service();
    before->evaluate(std::vector{cond("GpuLost", "6")}, wall_ms());
    for (int i = 0; i < 100 && counter(*before, "gpuwatch_alerts_delivery_failures_total") < 1; ++i) {
      std::this_thread::sleep_for(milliseconds{20});
    }
  }  // the agent stops with the alert undelivered
  ASSERT_TRUE(am_->start());
  auto after = service();  // a new agent on the same data dir; its own evaluation has nothing yet
  ASSERT_TRUE(hook_.wait_for([](const auto& b) { return !messages(b, "firing", "GpuLost").empty(); }));
  EXPECT_EQ(messages(hook_.bodies(), "firing", "GpuLost")[0]["alerts"][0]["labels"]["gpu"], "6");
  EXPECT_EQ(counter(*after, "gpuwatch_alerts_queued"), 0u);
}

}  // namespace
}  // namespace gpuwatch::alerting
