#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "alerting/alert_json.h"
#include "alerting/delivery_queue.h"
#include "alerting/delivery_worker.h"
#include "recording_server.h"
#include "temp_dir.h"

namespace gpuwatch::alerting {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using store::test::TempDir;

Alert alert(const std::string& gpu, AlertState state) {
  Alert a;
  a.labels = {{"alertname", "GpuLost"}, {"gpu", gpu}, {"severity", "page"}, {"service", "train"}};
  a.annotations = {{"summary", "GPU " + gpu + " lost"}};
  a.fingerprint = fingerprint(a.labels);
  a.state = state;
  a.active_at_ms = a.fired_at_ms = 1'000'000;
  if (state == AlertState::kResolved) a.resolved_at_ms = 2'000'000;
  return a;
}

nlohmann::json wire(const std::string& gpu, AlertState state) {
  return wire_alert(alert(gpu, state), 1'500'000, milliseconds{240'000}, "http://node:19400/api/v1/alerts");
}

DeliveryQueue::Batch take(DeliveryQueue& q) {
  return q.wait_and_take(std::stop_token{}, std::chrono::steady_clock::now());
}

TEST(WireAlert, AlertmanagerFields) {
  const auto firing = wire("1", AlertState::kFiring);
  EXPECT_EQ(firing["startsAt"], "1970-01-01T00:16:40.000Z");
  EXPECT_EQ(firing["endsAt"], "1970-01-01T00:29:00.000Z");  // now + valid_for
  EXPECT_EQ(firing["status"], "firing");
  const auto resolved = wire("1", AlertState::kResolved);
  EXPECT_EQ(resolved["endsAt"], "1970-01-01T00:33:20.000Z");
  EXPECT_EQ(resolved["status"], "resolved");
  const auto postable = postable_alert(resolved);
  EXPECT_FALSE(postable.contains("status"));
  EXPECT_FALSE(postable.contains("fingerprint"));
  EXPECT_EQ(postable["generatorURL"], "http://node:19400/api/v1/alerts");
  EXPECT_EQ(postable["labels"]["alertname"], "GpuLost");
}

TEST(DeliveryQueue, NewerStateReplacesOlderAndAcknowledgeKeepsWhatChanged) {
  DeliveryQueue q("");
  q.put(wire("1", AlertState::kFiring));
  q.put(wire("2", AlertState::kFiring));
  q.put(wire("1", AlertState::kResolved));
  auto batch = take(q);
  ASSERT_EQ(batch.alerts.size(), 2u);
  EXPECT_EQ(batch.alerts[0]["labels"]["gpu"], "2");  // oldest put first
  EXPECT_EQ(batch.alerts[1]["status"], "resolved");
  q.put(wire("2", AlertState::kResolved));  // arrives while the batch is in flight
  q.acknowledge(batch);
  batch = take(q);
  ASSERT_EQ(batch.alerts.size(), 1u);
  EXPECT_EQ(batch.alerts[0]["status"], "resolved");
  q.acknowledge(batch);
  EXPECT_EQ(q.size(), 0u);
}

TEST(DeliveryQueue, SurvivesARestartAndSetsAsideCorruptEntries) {
  TempDir dir;
  {
    DeliveryQueue q(dir.path());
    EXPECT_EQ(q.put(wire("1", AlertState::kFiring)), "");
    EXPECT_EQ(q.put(wire("2", AlertState::kResolved)), "");
    auto batch = take(q);
    batch.alerts.resize(1);
    batch.versions.resize(1);
    q.acknowledge(batch);  // GPU 1 delivered, GPU 2 not
  }
  std::ofstream(dir.path() + "/deadbeefdeadbeef.json") << "{ not json";
  DeliveryQueue again(dir.path());
  const auto batch = take(again);
  ASSERT_EQ(batch.alerts.size(), 1u);
  EXPECT_EQ(batch.alerts[0]["labels"]["gpu"], "2");
  EXPECT_EQ(batch.alerts[0]["status"], "resolved");
  EXPECT_TRUE(fs::exists(dir.path() + "/deadbeefdeadbeef.json.bad"));
}

// Entries that are JSON but not the shape put() writes (a number where a string belongs, a fingerprint that
// is a path) are set aside too: the agent starts, and they never reach a receiver.
TEST(DeliveryQueue, SetsAsideEntriesOfTheWrongShape) {
  TempDir dir;
  const std::vector<std::pair<std::string, std::string>> wrong = {
      {"a1", R"({"fingerprint":7,"labels":{},"annotations":{},"status":"firing"})"},
      {"a2", R"({"fingerprint":"../../x","labels":{},"annotations":{},"status":"firing"})"},
      {"a3", R"({"fingerprint":"a3","labels":{"gpu":1},"annotations":{},"status":"firing"})"},
      {"a4", R"({"fingerprint":"a4","labels":{},"status":"firing"})"},
      {"a5", R"({"fingerprint":"a5","labels":{},"annotations":{},"status":true})"},
      {"a6", R"([1,2,3])"},
  };
  for (const auto& [name, text] : wrong) std::ofstream(dir.path() + "/" + name + ".json") << text;
  DeliveryQueue q(dir.path());
  EXPECT_EQ(q.size(), 0u);
  for (const auto& [name, text] : wrong)
    EXPECT_TRUE(fs::exists(dir.path() + "/" + name + ".json.bad")) << text;
  EXPECT_EQ(q.put(wire("1", AlertState::kFiring)), "");  // and the queue works as usual
  EXPECT_EQ(take(q).alerts.size(), 1u);
}

// A queue dir that cannot be made (below a regular file) used to throw, stopping the agent: now the queue
// works in memory and persists again once the directory can be made.
TEST(DeliveryQueue, AnUnusableDirCostsPersistenceOnlyUntilItCanBeMade) {
  TempDir dir;
  const fs::path blocker = dir.path() + "/datafile";
  std::ofstream(blocker) << "x";
  const fs::path queue_dir = blocker / "alert-queue";
  std::unique_ptr<DeliveryQueue> q;
  ASSERT_NO_THROW(q = std::make_unique<DeliveryQueue>(queue_dir.string()));
  EXPECT_NE(q->put(wire("1", AlertState::kFiring)), "");  // says why it could not persist
  EXPECT_EQ(take(*q).alerts.size(), 1u);                  // but the alert waits for delivery
  fs::remove(blocker);
  EXPECT_EQ(q->put(wire("2", AlertState::kFiring)), "");
  EXPECT_EQ(take(*q).alerts.size(), 2u);
  EXPECT_EQ(DeliveryQueue(queue_dir.string()).size(), 1u) << "the alert put after the fix was persisted";
}

TEST(DeliveryWorker, RetriesWithBackoffUntilTheReceiverAccepts) {
  testing::RecordingServer am;
  am.fail_next(3);
  auto queue = std::make_shared<DeliveryQueue>("");
  DeliveryWorker worker(make_alertmanager_receiver(am.url()), queue,
                        RetryPolicy{milliseconds{10}, milliseconds{40}});
  queue->put(wire("1", AlertState::kFiring));
  ASSERT_TRUE(am.wait_for([](const auto& b) { return !b.empty(); }));
  EXPECT_EQ(am.failures_served(), 3);
  const auto body = am.bodies().at(0);
  ASSERT_TRUE(body.is_array());
  ASSERT_EQ(body.size(), 1u);
  EXPECT_EQ(body[0]["labels"]["gpu"], "1");
  EXPECT_FALSE(body[0].contains("status"));
  for (int i = 0; i < 100 && worker.counters().queued > 0; ++i) std::this_thread::sleep_for(milliseconds{10});
  const auto c = worker.counters();
  EXPECT_EQ(c.sent, 1u);
  EXPECT_EQ(c.failed, 3u);
  EXPECT_EQ(c.queued, 0u);
}

// Alertmanager writes the group key's labels with their values quoted and escaped: a value holding a quote
// must not end the value early.
TEST(WebhookMessage, GroupKeyEscapesLabelValues) {
  auto a = alert("1", AlertState::kFiring);
  a.labels["service"] = "say \"hi\"\\n";
  const auto message = webhook_message({wire_alert(a, 1'500'000, milliseconds{1000}, "")},
                                       {{"service", a.labels["service"]}}, "webhook", "http://node:19400");
  EXPECT_EQ(message["groupKey"], R"({}:{service="say \"hi\"\\n"})");
}

TEST(DeliveryWorker, WebhookGroupsByServiceAndSeverity) {
  testing::RecordingServer hook;
  auto queue = std::make_shared<DeliveryQueue>("");
  auto a = alert("1", AlertState::kFiring);
  auto b = alert("2", AlertState::kFiring);
  auto c = alert("3", AlertState::kFiring);
  c.labels["severity"] = "ticket";
  c.fingerprint = fingerprint(c.labels);
  for (const auto& x : {a, b, c}) queue->put(wire_alert(x, 1'500'000, milliseconds{1000}, ""));
  DeliveryWorker worker(make_webhook_receiver(hook.url(), {"service", "severity"}, "http://node:19400"),
                        queue, RetryPolicy{});
  ASSERT_TRUE(hook.wait_for([](const auto& b) { return b.size() == 2; }));
  std::map<std::string, nlohmann::json> by_severity;
  for (const auto& m : hook.bodies()) by_severity[m["groupLabels"]["severity"]] = m;
  const auto& page = by_severity.at("page");
  EXPECT_EQ(page["version"], "4");
  EXPECT_EQ(page["status"], "firing");
  EXPECT_EQ(page["receiver"], "webhook");
  EXPECT_EQ(page["groupKey"], "{}:{service=\"train\", severity=\"page\"}");
  EXPECT_EQ(page["alerts"].size(), 2u);
  EXPECT_EQ(page["commonLabels"]["alertname"], "GpuLost");
  EXPECT_FALSE(page["commonLabels"].contains("gpu"));  // differs between the two
  EXPECT_EQ(page["alerts"][0]["fingerprint"].get<std::string>().size(), 16u);
  EXPECT_EQ(by_severity.at("ticket")["alerts"].size(), 1u);
}

}  // namespace
}  // namespace gpuwatch::alerting
