// Scraping through the whole agent: a target's series reach the history with job and instance and are
// answered by the query API like the GPU series; a series the target stops exposing is gone from instant
// queries at once (its staleness marker), and a target that starts refusing is down.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "agent/agent.h"
#include "simulated_node.h"

namespace gpuwatch {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

json query(int port, const std::string& q) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(5, 0);
  const auto r = client.Get("/api/v1/query?query=" + httplib::detail::encode_query_param(q));
  if (!r || r->status != 200) return json::array();
  return json::parse(r->body)["data"]["result"];
}

// Polls an instant query until `done` accepts its result (10 s at most).
json until(int port, const std::string& q, const std::function<bool(const json&)>& done) {
  json result;
  for (int i = 0; i < 200; ++i) {
    result = query(port, q);
    if (done(result)) break;
    std::this_thread::sleep_for(50ms);
  }
  return result;
}

TEST(AgentScrape, ScrapedSeriesAreQueryableAndGoStaleWhenTheTargetDropsThem) {
  std::atomic<int> phase{0};
  httplib::Server target;
  target.Get("/metrics", [&](const httplib::Request&, httplib::Response& res) {
    if (phase == 2) {
      res.status = 500;
      return;
    }
    res.set_content(
        phase == 0 ? "requests_total{model=\"m\"} 10\nqueue 3\n" : "requests_total{model=\"m\"} 12\n",
        "text/plain; version=0.0.4");
  });
  const int target_port = target.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { target.listen_after_bind(); });

  std::string dir = (std::filesystem::temp_directory_path() / "gpuwatch-agent-scrape-XXXXXX").string();
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  AgentOptions o = test::simulated_node(100ms);
  o.store = true;
  o.data_dir = dir;
  ScrapeTargetConfig c;
  c.job = "model-server";
  c.url = "http://127.0.0.1:" + std::to_string(target_port) + "/metrics";
  c.interval = 200ms;
  c.timeout = 150ms;
  c.labels = {{"team", "search"}};
  o.scrape.targets = {c};
  {
    Agent agent(o);
    agent.start();
    const std::string instance = "127.0.0.1:" + std::to_string(target_port);
    const json first = until(agent.port(), "requests_total", [](const json& r) { return !r.empty(); });
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0]["metric"]["job"], "model-server");
    EXPECT_EQ(first[0]["metric"]["instance"], instance);
    EXPECT_EQ(first[0]["metric"]["team"], "search");
    EXPECT_EQ(first[0]["metric"]["model"], "m");
    EXPECT_EQ(until(agent.port(), "queue", [](const json& r) { return !r.empty(); }).size(), 1u);
    const json up = until(agent.port(), "up{job=\"model-server\"}", [](const json& r) { return !r.empty(); });
    ASSERT_EQ(up.size(), 1u);
    EXPECT_EQ(up[0]["value"][1], "1");
    // The GPU series are there beside them, from the same history.
    EXPECT_EQ(query(agent.port(), "gpu_up").size(), 8u);

    phase = 1;  // `queue` is no longer exposed: its staleness marker ends it at once (no 5-minute lookback)
    EXPECT_TRUE(until(agent.port(), "queue", [](const json& r) { return r.empty(); }).empty());
    EXPECT_EQ(until(agent.port(), "requests_total",
                    [](const json& r) { return !r.empty() && r[0]["value"][1] == "12"; })[0]["value"][1],
              "12");

    phase = 2;  // the target fails: down, and its series stale
    const json down = until(agent.port(), "up{job=\"model-server\"}",
                            [](const json& r) { return !r.empty() && r[0]["value"][1] == "0"; });
    ASSERT_EQ(down.size(), 1u);
    EXPECT_EQ(down[0]["value"][1], "0");
    EXPECT_TRUE(until(agent.port(), "requests_total", [](const json& r) { return r.empty(); }).empty());
    EXPECT_TRUE(agent.stop());
  }
  target.stop();
  serving.join();
  std::filesystem::remove_all(dir);
}

TEST(AgentScrape, AReloadKeepsTheRunningTargets) {
  AgentOptions o = test::simulated_node(100ms);
  ScrapeTargetConfig c;
  c.job = "a";
  c.url = "http://127.0.0.1:1/metrics";
  o.scrape.targets = {c};
  Agent agent(o);
  agent.start();
  AgentOptions changed = o;
  changed.scrape.targets[0].job = "b";
  agent.reload(changed);
  EXPECT_EQ(agent.options().scrape, o.scrape);  // restart-only, with a warning in the log
  AgentOptions without = o;
  without.scrape = {};  // a file without the section: the running one (maybe the scenario's) stays
  agent.reload(without);
  EXPECT_EQ(agent.options().scrape, o.scrape);
  EXPECT_TRUE(agent.stop());
}

}  // namespace
}  // namespace gpuwatch
