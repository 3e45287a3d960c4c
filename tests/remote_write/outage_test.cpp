// Receivers that go away: a real Prometheus and a real VictoriaMetrics stopped for 10 minutes of scenario
// time, and a receiver answering 500s and 429s. Afterwards each holds every sample the agent's history
// holds, compared one by one (time and value).
#include <gtest/gtest.h>

#include <ctime>
#include <iostream>

#include "fault_proxy.h"
#include "http/web_config.h"
#include "lockstep_node.h"
#include "test_certificates.h"

namespace gpuwatch::test {
namespace {

TEST(RemoteWriteOutage, ReceiversStoppedForTenMinutesOfScenarioTimeGetEverySampleInOrder) {
  auto prometheus = make_prometheus_receiver();
  auto victoria = make_victoria_metrics_receiver();
  prometheus->start();
  victoria->start();
  LockstepNode node({target("prometheus", prometheus->write_url()), target("vm", victoria->write_url())});

  node.run_until(180);  // 3 minutes with both receivers up
  ASSERT_TRUE(node.wait_until_sent(std::chrono::seconds(60)));
  prometheus->stop();
  victoria->stop();
  node.run_until(780);  // 10 minutes with both down: everything waits on disk
  for (const auto& s : node.sink().stats()) {
    EXPECT_GT(s.queue.samples, 0u) << s.name;
    EXPECT_GE(s.queue.newest_ms - s.queue.oldest_ms, 590'000) << s.name << ": the queue spans the outage";
    EXPECT_GT(s.failures_network, 0u) << s.name;
  }
  std::cout << "queued during the outage: ";
  for (const auto& s : node.sink().stats())
    std::cout << s.name << " " << s.queue.samples << " samples, " << s.queue.bytes << " bytes; ";
  std::cout << "\n";
  prometheus->start();
  victoria->start();
  node.run_until(960);  // 3 more minutes while the queues catch up
  ASSERT_TRUE(node.wait_until_sent(std::chrono::seconds(120)));

  const RawSamples history = node.history();
  const std::size_t recorded = count_samples(history);
  // 2 GPUs x 481 snapshots x every GPU series: far more than a handful.
  ASSERT_GT(recorded, 20'000u);
  EXPECT_EQ(expect_receiver_holds_history(node, history, *prometheus, "prometheus"), recorded);
  EXPECT_EQ(expect_receiver_holds_history(node, history, *victoria, "victoria-metrics", 1e-9), recorded);
  std::cout << "history: " << recorded << " samples of " << history.size()
            << " series; each receiver holds them all, compared one by one\n";
  for (const auto& s : node.sink().stats()) {
    EXPECT_EQ(s.dropped_rejected + s.dropped_queue_full, 0u) << s.name;
    EXPECT_EQ(s.newest_sent_ms, node.last_ms()) << s.name;
  }
}

TEST(RemoteWriteFaults, FiveHundredsAndTooManyRequestsAreRetriedAndNothingIsLost) {
  auto prometheus = make_prometheus_receiver();
  prometheus->start();
  FaultProxy proxy(prometheus->write_url());
  proxy.answer(500, 4);
  proxy.answer(503, 2);
  proxy.answer(429, 3, "1");  // Retry-After: 1 second, three times
  LockstepNode node({target("flaky", proxy.write_url())});
  const auto started = std::chrono::steady_clock::now();
  node.run_until(300);
  ASSERT_TRUE(node.wait_until_sent(std::chrono::seconds(60)));
  // Three 429s each asked for a second's pause: the sender waited at least that long in all.
  EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::seconds(3));

  const RawSamples history = node.history();
  const std::size_t recorded = count_samples(history);
  ASSERT_GT(recorded, 10'000u);
  EXPECT_EQ(expect_receiver_holds_history(node, history, *prometheus, "prometheus"), recorded);
  const auto s = node.sink().stats().at(0);
  EXPECT_EQ(s.failures_server, 6u);
  EXPECT_EQ(s.failures_throttled, 3u);
  EXPECT_EQ(s.dropped_rejected, 0u);
  EXPECT_EQ(proxy.requests(), proxy.forwarded() + 9);
}

// Retry-After: an HTTP date (RFC 9110's other form) four seconds ahead: the sender waits until then, where
// its own backoff would have sent again after 100 ms.
TEST(RemoteWriteFaults, TooManyRequestsWithRetryAfterAsAnHttpDateWaitsUntilThatDate) {
  auto prometheus = make_prometheus_receiver();
  prometheus->start();
  FaultProxy proxy(prometheus->write_url());
  const std::time_t then = std::time(nullptr) + 4;
  std::tm tm{};
  ::gmtime_r(&then, &tm);
  char date[64];
  ASSERT_GT(std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm), 0u);
  proxy.answer(429, 1, date);
  LockstepNode node({target("throttled", proxy.write_url())});
  node.run_until(20);
  ASSERT_TRUE(node.wait_until_sent(std::chrono::seconds(60)));
  // The date has whole seconds: the first answer came in the second before `then` at the latest.
  EXPECT_GE(std::time(nullptr), then);
  EXPECT_EQ(proxy.requests(), proxy.forwarded() + 1);
  const auto s = node.sink().stats().at(0);
  EXPECT_EQ(s.failures_throttled, 1u);
  const RawSamples history = node.history();
  EXPECT_EQ(expect_receiver_holds_history(node, history, *prometheus, "prometheus"), count_samples(history));
}

TEST(RemoteWriteTls, HttpsAndBasicAuthToAPrometheusBehindTheWebConfigFileTheAgentReadsToo) {
  Dir d;
  make_ca(d, "ca");
  make_signed(d, "ca", "server", "IP:127.0.0.1");
  d.write("web.yml", "tls_server_config:\n  cert_file: " + d.file("server.pem") + "\n  key_file: " +
                         d.file("server.key") + "\nbasic_auth_users:\n  agent: " + bcrypt("push-it") + "\n");
  std::vector<std::string> errors;
  EXPECT_TRUE(load_web_config(d.file("web.yml"), errors)) << "gpuwatch's listener takes the same file";
  auto prometheus = make_prometheus_receiver({d.file("web.yml"), d.file("ca.pem"), "agent", "push-it"});
  prometheus->start();
  RemoteWriteTarget trusted = target("trusted", prometheus->write_url());
  trusted.tls_ca_file = d.file("ca.pem");
  trusted.basic_auth_username = "agent";
  trusted.basic_auth_password = "push-it";
  RemoteWriteTarget no_ca = trusted;  // the system's CAs do not know the test's
  no_ca.name = "no_ca";
  no_ca.tls_ca_file.clear();
  RemoteWriteTarget no_password = trusted;
  no_password.name = "no_password";
  no_password.basic_auth_password = "guess";
  LockstepNode node({trusted, no_ca, no_password});
  node.run_until(120);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline && node.sink().stats().at(0).queue.requests > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the sender's pace, in wall time
  const auto stats = node.sink().stats();
  EXPECT_EQ(stats.at(0).queue.requests, 0u);
  EXPECT_GT(stats.at(1).failures_network, 0u) << "an unknown CA is a failed handshake, retried";
  EXPECT_GT(stats.at(1).queue.samples, 0u);
  EXPECT_GT(stats.at(2).dropped_rejected, 0u)
      << "401 is a 4xx: the receiver refuses, sending again cannot help";

  const RawSamples history = node.history();
  const std::size_t recorded = count_samples(history);
  ASSERT_GT(recorded, 2'000u);
  EXPECT_EQ(expect_receiver_holds_history(node, history, *prometheus, "prometheus over https"), recorded);
}

}  // namespace
}  // namespace gpuwatch::test
