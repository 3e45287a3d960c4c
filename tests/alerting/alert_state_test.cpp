// The alerts' state in the data dir: the file's round trip and its errors (alert_state_file.h), and the
// alerting service started again on the same data dir, which takes back what is still worth keeping.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "alerting/alert_state_file.h"
#include "alerting/alerting_service.h"
#include "core/file_io.h"
#include "temp_dir.h"

namespace gpuwatch::alerting {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using store::test::TempDir;

constexpr std::int64_t kHourMs = 3'600'000;
constexpr std::int64_t kT0 = 1'700'000'000'000;  // an epoch time, as the agent's clock gives

Condition xid(std::int64_t event_ms) {
  Condition c;
  c.alertname = "GpuXidCritical";
  c.severity = Severity::kPage;
  c.labels = {{"gpu", "1"}, {"xid", "79"}};
  c.summary = "XID 79 on GPU 1";
  c.holds_until_ms = event_ms + kHourMs;
  return c;
}

Condition link_degraded() {
  Condition c;
  c.alertname = "GpuPcieLinkDegraded";
  c.labels = {{"gpu", "2"}};
  c.summary = "PCIe link of GPU 2 runs below its maximum";
  c.for_duration = milliseconds{60'000};
  return c;
}

AlertingOptions state_options(const std::string& data_dir) {
  AlertingOptions o;
  o.engine.hostname = "node7";
  o.data_dir = data_dir;
  return o;
}

// One run of the agent's alerting on the data dir: an evaluation with `held` at each of `times`, then killed
// (nothing is saved at shutdown: what is on disk is what each change wrote).
void run_then_kill(const TempDir& dir, const std::vector<Condition>& held, std::vector<std::int64_t> times) {
  AlertingService service(state_options(dir.path()), [] { return kT0; });
  for (const std::int64_t t : times) service.evaluate(held, t);
}

// A copy: the service hands out its alerts by value, so a pointer into them would outlive them.
std::optional<Alert> find(const std::vector<Alert>& alerts, const std::string& name) {
  for (const Alert& a : alerts)
    if (a.alertname() == name) return a;
  return std::nullopt;
}

TEST(AlertStateFile, RoundTrip) {
  TempDir dir;
  AlertEngine engine(AlertEngineOptions{
      "node7", {{"service", "training"}}, "", milliseconds{900'000}, milliseconds{600'000}});
  const std::vector<Condition> held{xid(kT0), link_degraded()};
  engine.evaluate(held, kT0);
  SavedAlerts state{engine.alerts(), {}, kT0};
  state.webhook_notified[state.alerts[0].fingerprint] = AlertState::kFiring;
  const std::string path = dir.path() + "/alerts.json";
  ASSERT_EQ(write_file_durably(path, alert_state_json(state)), "");

  std::string error;
  const SavedAlerts back = read_alert_state(path, error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(back.saved_at_ms, kT0);
  EXPECT_EQ(back.webhook_notified, state.webhook_notified);
  ASSERT_EQ(back.alerts.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const Alert &a = state.alerts[i], &b = back.alerts[i];
    EXPECT_EQ(b.labels, a.labels);
    EXPECT_EQ(b.annotations, a.annotations);
    EXPECT_EQ(b.state, a.state);
    EXPECT_EQ(b.fingerprint, a.fingerprint);
    EXPECT_EQ(b.active_at_ms, a.active_at_ms);
    EXPECT_EQ(b.fired_at_ms, a.fired_at_ms);
    EXPECT_EQ(b.resolved_at_ms, a.resolved_at_ms);
    EXPECT_EQ(b.last_held_ms, a.last_held_ms);
    EXPECT_EQ(b.held_until_ms, a.held_until_ms);
    EXPECT_EQ(b.for_duration, a.for_duration);
  }
  EXPECT_EQ(lifecycle_key(back), lifecycle_key(state));
  std::optional<Alert> x = find(back.alerts, "GpuXidCritical");
  ASSERT_TRUE(x.has_value());
  EXPECT_EQ(x->state, AlertState::kFiring);
  EXPECT_EQ(x->held_until_ms, kT0 + kHourMs);
}

TEST(AlertStateFile, MissingIsNoStateAndNoError) {
  TempDir dir;
  std::string error = "stale";
  EXPECT_TRUE(read_alert_state(dir.path() + "/alerts.json", error).alerts.empty());
  EXPECT_EQ(error, "");
}

TEST(AlertStateFile, ATornOrCorruptFileIsAClearErrorAndNoState) {
  TempDir dir;
  AlertEngine engine(AlertEngineOptions{});
  const std::vector<Condition> held{xid(kT0)};
  engine.evaluate(held, kT0);
  const std::string text = alert_state_json({engine.alerts(), {}, kT0});
  const std::string path = dir.path() + "/alerts.json";

  // Cut short, as a write without the durable rename could leave it.
  std::ofstream(path) << text.substr(0, text.size() / 2);
  std::string error;
  EXPECT_TRUE(read_alert_state(path, error).alerts.empty());
  EXPECT_TRUE(error.starts_with(path + ":")) << error;
  EXPECT_NE(error.find(": invalid JSON: syntax error"), std::string::npos) << error;

  std::ofstream(path, std::ios::trunc) << R"({"version": 1, "savedAtMs": 5, "alerts": [
    {"labels": {"alertname": "GpuXidCritical"}, "annotations": {}, "state": "burning", "activeAtMs": 1,
     "firedAtMs": 1, "resolvedAtMs": 0, "lastHeldMs": 1, "heldUntilMs": 0, "forMs": 0}]})";
  EXPECT_TRUE(read_alert_state(path, error).alerts.empty());
  EXPECT_EQ(error, path + ": alert 0: state: expected pending, firing or resolved");

  std::ofstream(path, std::ios::trunc) << R"([1, 2])";
  EXPECT_TRUE(read_alert_state(path, error).alerts.empty());
  EXPECT_TRUE(error.starts_with(path + ": expected {\"version\": 1")) << error;
}

// An XID alert (held an hour from the event) survives a restart the detector forgets the XID across, keeps
// its start, and resolves when the hour from the original event ends.
TEST(AlertStateRestart, AnEventAlertHoldsItsOriginalHour) {
  TempDir dir;
  run_then_kill(dir, {xid(kT0)}, {kT0, kT0 + 10'000});
  AlertingService again(state_options(dir.path()), [] { return kT0; });
  again.evaluate({}, kT0 + 20 * 60'000);  // 20 minutes later: longer than the grace, shorter than the hold
  std::optional<Alert> a = find(again.alerts(), "GpuXidCritical");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->state, AlertState::kFiring);
  EXPECT_EQ(a->active_at_ms, kT0);
  EXPECT_EQ(a->fired_at_ms, kT0);
  again.evaluate({}, kT0 + kHourMs);
  EXPECT_EQ(find(again.alerts(), "GpuXidCritical")->state, AlertState::kFiring);
  again.evaluate({}, kT0 + kHourMs + 1000);
  a = find(again.alerts(), "GpuXidCritical");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->state, AlertState::kResolved);
  EXPECT_EQ(a->resolved_at_ms, kT0 + kHourMs + 1000);
}

// A `for` alert restarted within the grace goes on counting from its original start: it fires at
// start + for, once, and a firing one stays firing with its start.
TEST(AlertStateRestart, AForAlertKeepsItsStartWithinTheGrace) {
  TempDir dir;
  const std::vector<Condition> held{link_degraded()};
  run_then_kill(dir, held, {kT0, kT0 + 30'000});
  {
    AlertingService again(state_options(dir.path()), [] { return kT0; });
    again.evaluate(held, kT0 + 50'000);
    EXPECT_EQ(find(again.alerts(), "GpuPcieLinkDegraded")->state, AlertState::kPending);
    again.evaluate(held, kT0 + 60'000);
    std::optional<Alert> a = find(again.alerts(), "GpuPcieLinkDegraded");
    EXPECT_EQ(a->state, AlertState::kFiring);
    EXPECT_EQ(a->active_at_ms, kT0);
    again.evaluate(held, kT0 + 70'000);
  }
  AlertingService third(state_options(dir.path()), [] { return kT0; });
  third.evaluate(held, kT0 + 5 * 60'000);
  std::optional<Alert> a = find(third.alerts(), "GpuPcieLinkDegraded");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->state, AlertState::kFiring);
  EXPECT_EQ(a->active_at_ms, kT0);
  EXPECT_EQ(a->fired_at_ms, kT0 + 60'000);
  // Gone after the restart: it resolves normally.
  third.evaluate({}, kT0 + 5 * 60'000 + 1000);
  EXPECT_EQ(find(third.alerts(), "GpuPcieLinkDegraded")->state, AlertState::kResolved);
}

// Past the grace, the saved alert is ignored: the condition seen again is a new alert with a new start.
TEST(AlertStateRestart, ATooOldStateIsIgnored) {
  TempDir dir;
  const std::vector<Condition> held{link_degraded()};
  run_then_kill(dir, held, {kT0, kT0 + 70'000});
  AlertingService again(state_options(dir.path()), [] { return kT0; });
  const std::int64_t later = kT0 + 70'000 + 11 * 60'000;  // past the 10-minute grace
  again.evaluate(held, later);
  std::optional<Alert> a = find(again.alerts(), "GpuPcieLinkDegraded");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->state, AlertState::kPending);
  EXPECT_EQ(a->active_at_ms, later);
}

TEST(AlertStateRestart, ACorruptStateStartsWithoutRestoredAlerts) {
  TempDir dir;
  std::ofstream(dir.path() + "/alerts.json") << "{\"version\": 1, \"alerts\": [{\"labels\": ";
  AlertingService service(state_options(dir.path()), [] { return kT0; });
  const std::vector<Condition> held{xid(kT0)};
  service.evaluate(held, kT0);
  ASSERT_EQ(service.alerts().size(), 1u);
  // The next change replaced the damaged file with a good one.
  std::string error;
  EXPECT_EQ(read_alert_state(dir.path() + "/alerts.json", error).alerts.size(), 1u);
  EXPECT_EQ(error, "");
}

}  // namespace
}  // namespace gpuwatch::alerting
