// The Agent on the simulator with a sink that throws on every snapshot and one stuck for 10 s in its first:
// sampling keeps its interval, detection goes on, /metrics stays fresh and shows the errors and drops, and
// stopping does not wait for the stuck sink.
#include "agent/agent.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <thread>

#include "agent/collector_setup.h"
#include "http/http_server.h"
#include "raw_client.h"
#include "simulated_node.h"
#include "sources/host/host_snapshot.h"
#include "test_sinks.h"

namespace gpuwatch {
namespace {

using namespace std::chrono_literals;
using test::simulated_node;
using testing::RawClient;
using testing::reply_status;

std::string scrape(int port) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(5, 0);
  auto r = client.Get("/metrics");
  return r && r->status == 200 ? r->body : "";
}

// The value of the first sample whose line starts with `series`; -1 when absent.
double value_of(const std::string& body, const std::string& series) {
  const auto at = body.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(body.substr(at + series.size() + 2));
}

TEST(AgentPipeline, AThrowingAndAStuckSinkNeitherSlowSamplingNorStopDetection) {
  constexpr auto kInterval = 100ms;
  // A queue long enough that a starved test thread cannot drop: its record is every snapshot published.
  auto throws =
      std::make_shared<test::RecordingSink>("throws", true, SinkQueueOptions{64, WhenFull::kDropNewest});
  auto stuck = std::make_shared<test::BlockingSink>("stuck");
  Agent agent(simulated_node(kInterval), {throws, stuck});
  agent.start();
  ASSERT_GT(agent.port(), 0);
  ASSERT_TRUE(stuck->wait_until_blocked());

  const auto first = scrape(agent.port());
  std::this_thread::sleep_for(2s);
  const auto second = scrape(agent.port());
  const auto started = std::chrono::steady_clock::now();
  EXPECT_FALSE(agent.stop());                                 // the stuck sink is left behind...
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);  // ...within the stop grace, not its 10 s
  stuck->release();

  // Sampling kept its interval: about 20 ticks in 2 s, never a gap near the stuck sink's 10 s.
  const auto stamps = throws->timestamps();
  ASSERT_GE(stamps.size(), 12U) << "the collector was held up";
  std::int64_t widest = 0;
  for (std::size_t i = 1; i < stamps.size(); ++i) widest = std::max(widest, stamps[i] - stamps[i - 1]);
  EXPECT_LE(widest, 600) << "ms between two snapshots";

  // The throwing sink failed on every snapshot and was counted; detection consumed them all without error.
  const double ticks_before = value_of(first, "gpuwatch_ticks_total");
  const double ticks_after = value_of(second, "gpuwatch_ticks_total");
  EXPECT_GE(ticks_after - ticks_before, 12) << "/metrics is not fresh";
  EXPECT_GE(value_of(second, R"(gpuwatch_sink_errors_total{sink="throws"})"), 12);
  EXPECT_EQ(value_of(second, R"(gpuwatch_sink_errors_total{sink="detection"})"), 0);
  EXPECT_GT(value_of(second, R"(gpuwatch_sink_dropped_snapshots_total{sink="stuck"})"), 0);
  EXPECT_EQ(value_of(second, R"(gpuwatch_sink_queue_length{sink="stuck"})"), 4);
  EXPECT_GE(value_of(second, R"(gpuwatch_sink_duration_seconds{sink="stuck"})"), 1.5);
  EXPECT_EQ(value_of(second, R"(gpuwatch_source_success{source="nvml"})"), 1);

  for (const auto& s : agent.sink_stats()) {
    if (s.name != "detection") continue;
    EXPECT_GE(s.consumed, 12U);
    EXPECT_EQ(s.errors, 0U);
  }
}

TEST(AgentPipeline, AReloadWithANewIntervalKeepsTheSinksAndTheRestartOnlySettings) {
  auto recorder =
      std::make_shared<test::RecordingSink>("recorder", false, SinkQueueOptions{64, WhenFull::kDropNewest});
  Agent agent(simulated_node(400ms), {recorder});
  agent.start();
  ASSERT_TRUE(recorder->wait_for(2));
  AgentOptions reloaded = agent.options();
  reloaded.interval = 50ms;
  reloaded.listen = "127.0.0.1:1";  // restart-only: keeps its running value
  agent.reload(reloaded);
  const std::size_t before = recorder->sequences().size();
  std::this_thread::sleep_for(1s);
  EXPECT_GE(recorder->sequences().size() - before, 8U) << "the new collector feeds the same sinks";
  EXPECT_EQ(agent.options().interval, 50ms);
  EXPECT_EQ(agent.options().listen, "127.0.0.1:0");
  EXPECT_FALSE(scrape(agent.port()).empty());
  EXPECT_TRUE(agent.stop());
}

// A reload that replaces the collector carries the kernel log on: its counts go on even when the log no
// longer holds the oldest records (a ring buffer), a record read before is not news again, and one logged
// after the reload is counted once.
TEST(AgentPipeline, AReloadCarriesTheKernelLogOn) {
  std::string dir = (std::filesystem::temp_directory_path() / "gpuwatch-agent-kmsg-XXXXXX").string();
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  const std::string kmsg = dir + "/kmsg";
  const auto log = [&](const std::string& record, std::ios::openmode mode = std::ios::app) {
    std::ofstream(kmsg, mode) << record << "\n";
  };
  const std::string first_xid =
      "4,11,2000000,-;NVRM: Xid (PCI:0000:3b:00): 13, pid=77, name=python3, Graphics";
  log("6,10,1000000,-;usb 1-1: new device");
  AgentOptions o = simulated_node(100ms);
  o.kmsg = kmsg;
  Agent agent(o);
  agent.start();
  const auto host = [&agent] {
    const SnapshotPtr s = agent.latest();
    return s ? s->host : nullptr;
  };
  const auto records = [&] { return host() && host()->kernel_log ? host()->kernel_log->records : 0; };
  const auto xids = [&]() -> std::uint64_t {
    if (!host()) return 0;
    const auto it = host()->kernel_event_counts.find("xid");
    return it == host()->kernel_event_counts.end() ? 0 : it->second;
  };
  for (int i = 0; i < 100 && records() < 1; ++i) std::this_thread::sleep_for(20ms);
  log(first_xid);
  for (int i = 0; i < 100 && xids() < 1; ++i) std::this_thread::sleep_for(20ms);
  ASSERT_EQ(records(), 2U);
  ASSERT_EQ(xids(), 1U);

  log(first_xid, std::ios::trunc);  // the log has dropped its oldest record
  AgentOptions reloaded = agent.options();
  reloaded.interval = 50ms;
  agent.reload(reloaded);
  // Ten ticks of the new collector (its own count starts again), each with a host reading.
  for (int i = 0; i < 200 && !(agent.latest() && agent.latest()->ticks >= 10); ++i)
    std::this_thread::sleep_for(20ms);
  ASSERT_GE(agent.latest()->ticks, 10U);
  EXPECT_EQ(records(), 2U) << "the count goes on from the replaced collector's";
  EXPECT_EQ(xids(), 1U);
  EXPECT_EQ(host()->kernel_events_read, 1U);
  ASSERT_EQ(host()->kernel_events->size(), 1U);
  EXPECT_FALSE(host()->kernel_events->front().before_start) << "it was logged while the agent ran";

  log("4,12,3000000,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=78, name=python3, GPU has fallen off the bus.");
  for (int i = 0; i < 100 && xids() < 2; ++i) std::this_thread::sleep_for(20ms);
  EXPECT_EQ(xids(), 2U);
  EXPECT_EQ(records(), 3U);
  EXPECT_EQ(host()->kernel_events->size(), 2U);
  EXPECT_TRUE(agent.stop());
  std::filesystem::remove_all(dir);
}

// The query limits are agent settings: the query API the Agent serves refuses a query over query_max_samples.
TEST(AgentPipeline, TheQueryApiHonoursTheConfiguredSampleLimit) {
  std::string dir = (std::filesystem::temp_directory_path() / "gpuwatch-agent-query-XXXXXX").string();
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  AgentOptions o = simulated_node(50ms);
  o.store = true;
  o.data_dir = dir;
  o.query_max_samples = 20;
  Agent agent(o);
  agent.start();
  httplib::Client client("127.0.0.1", agent.port());
  client.set_read_timeout(5, 0);
  int status = 0;
  std::string body;
  // Every GPU's temperature over the last hour: 8 series, more than 20 samples once a few ticks are stored.
  for (int i = 0; i < 100 && status != 422; ++i) {
    std::this_thread::sleep_for(50ms);
    auto r = client.Get("/api/v1/query?query=gpu_temperature_celsius%5B1h%5D");
    if (!r) continue;
    status = r->status;
    body = r->body;
  }
  EXPECT_EQ(status, 422) << body;
  EXPECT_NE(body.find("too many samples"), std::string::npos) << body;
  EXPECT_TRUE(agent.stop());
  std::filesystem::remove_all(dir);
}

// The HTTP server's limits are agent settings: the server the Agent runs applies the configured per-client
// connection limit and header deadline (the defaults, 256 and 10 s, would leave both connections open).
TEST(AgentPipeline, TheServerAppliesTheConfiguredHttpLimits) {
  AgentOptions o = simulated_node(100ms);
  ASSERT_EQ(find_option("http_max_connections_per_client")->apply(o, "2"), std::nullopt);
  ASSERT_EQ(find_option("http_header_timeout")->apply(o, "1s"), std::nullopt);
  Agent agent(o);
  agent.start();
  RawClient served(agent.port());
  ASSERT_TRUE(served.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_EQ(reply_status(served.read_reply(3000ms)), 200);
  RawClient slow(agent.port());
  ASSERT_TRUE(slow.send("GET /healthz HTTP/1.1\r\nHost"));  // headers never finished
  RawClient third(agent.port());
  ASSERT_TRUE(third.connected());  // the kernel accepts; the server closes it at once
  EXPECT_TRUE(third.closed_within(3000ms)) << "a third connection from one client was kept";
  EXPECT_TRUE(slow.closed_within(5000ms)) << "unfinished headers were not cut off at 1s";
  EXPECT_TRUE(agent.stop());
}

// The settings' defaults are the server's own, so an agent without them serves as before.
TEST(AgentPipeline, HttpSettingsDefaultToTheServersDefaults) {
  const AgentOptions agent;
  const HttpServerOptions server;
  EXPECT_EQ(agent.http_header_timeout, server.header_timeout);
  EXPECT_EQ(agent.http_body_timeout, server.body_timeout);
  EXPECT_EQ(agent.http_idle_timeout, server.idle_timeout);
  EXPECT_EQ(agent.http_max_connections, server.max_connections);
  EXPECT_EQ(agent.http_max_connections_per_client, server.max_connections_per_client);
  EXPECT_EQ(agent.http_max_reply_size, server.max_reply_bytes);
  EXPECT_EQ(agent.http_workers, server.threads);
  EXPECT_EQ(agent.http_queue, server.queue);
}

}  // namespace
}  // namespace gpuwatch
