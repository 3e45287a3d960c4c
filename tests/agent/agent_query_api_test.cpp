// The query API as the Agent serves it, for Grafana: the agent's series carry the instance and job a scraping
// Prometheus would give them, dcgm-exporter's names are answered from the native series, instant queries are
// answered from the latest snapshot when the store is off (range queries say that history is off), and the
// rules and status endpoints answer.
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "agent/agent.h"
#include "simulated_node.h"

namespace gpuwatch {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

json get(int port, const std::string& path, int status = 200) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(5, 0);
  const auto r = client.Get(path);
  if (!r) {
    ADD_FAILURE() << path << ": no answer";
    return {};
  }
  EXPECT_EQ(r->status, status) << path << ": " << r->body;
  return json::parse(r->body, nullptr, false);
}

// An instant query's result once the agent has sampled (the first tick is at start).
json first_result(int port, const std::string& query) {
  json result;
  for (int i = 0; i < 100; ++i) {
    result = get(port, "/api/v1/query?query=" + httplib::detail::encode_query_param(query))["data"]["result"];
    if (!result.empty()) break;
    std::this_thread::sleep_for(50ms);
  }
  return result;
}

TEST(AgentQueryApi, WithTheStoreOffInstantQueriesAnswerFromTheLatestSnapshot) {
  AgentOptions o = test::simulated_node(100ms);
  Agent agent(o);
  agent.start();
  const json temps = first_result(agent.port(), "gpu_temperature_celsius");
  ASSERT_EQ(temps.size(), 8u);
  EXPECT_EQ(temps[0]["metric"]["instance"], agent.address());  // 127.0.0.1:<port>, as a scrape names it
  EXPECT_EQ(temps[0]["metric"]["job"], "gpuwatch");

  const json dcgm = first_result(agent.port(), "DCGM_FI_DEV_GPU_TEMP{gpu=\"3\"}");
  ASSERT_EQ(dcgm.size(), 1u);
  EXPECT_EQ(dcgm[0]["metric"]["device"], "nvidia3");
  EXPECT_EQ(dcgm[0]["metric"]["modelName"], "NVIDIA H200");
  EXPECT_EQ(dcgm[0]["metric"]["Hostname"], "gpu-node-017");  // the scenario's
  EXPECT_EQ(dcgm[0]["metric"]["DCGM_FI_DRIVER_VERSION"], "550.54.15");
  EXPECT_EQ(dcgm[0]["metric"]["instance"], agent.address());

  const json refused = get(agent.port(), "/api/v1/query_range?query=gpu_up&start=0&end=60&step=15", 422);
  EXPECT_EQ(refused["errorType"], "execution");
  EXPECT_NE(refused["error"].get<std::string>().find("history is off"), std::string::npos);

  const json instances = get(agent.port(), "/api/v1/label/instance/values?match[]=DCGM_FI_DEV_GPU_TEMP");
  EXPECT_EQ(instances["data"], json::array({agent.address()}));
  const json names = get(agent.port(), "/api/v1/label/__name__/values")["data"];
  EXPECT_NE(std::find(names.begin(), names.end(), "DCGM_FI_DEV_FB_RESERVED"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "gpu_info"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "ALERTS"), names.end());  // published beside the snapshot
  EXPECT_TRUE(agent.stop());
}

TEST(AgentQueryApi, RulesMetadataAndStatusAnswerAsPrometheusDoes) {
  std::string dir = (std::filesystem::temp_directory_path() / "gpuwatch-agent-status-XXXXXX").string();
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  AgentOptions o = test::simulated_node(100ms);
  o.store = true;
  o.data_dir = dir;
  o.alertmanager_url = "http://am:s3cret@127.0.0.1:1";  // a credential the status API must not show
  Agent agent(o);
  agent.start();
  // Watchdog fires from the first evaluation on.
  json rules;
  for (int i = 0; i < 100; ++i) {
    rules = get(agent.port(), "/api/v1/rules?rule_name[]=Watchdog")["data"]["groups"];
    if (!rules.empty() && rules[0]["rules"][0]["state"] == "firing") break;
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0]["name"], "watchdog");
  EXPECT_EQ(rules[0]["rules"][0]["state"], "firing");
  EXPECT_EQ(rules[0]["rules"][0]["alerts"].size(), 1u);
  const json all = get(agent.port(), "/api/v1/rules")["data"]["groups"];
  EXPECT_EQ(all.back()["name"], "agent");
  EXPECT_EQ(all.back()["rules"][0]["name"], "GpuMonitoringDown");

  const json meta = get(agent.port(), "/api/v1/metadata")["data"];
  EXPECT_EQ(meta["ALERTS"][0]["type"], "gauge");
  EXPECT_EQ(meta["gpu_driver_info"][0]["type"], "info");
  EXPECT_EQ(meta["gpuwatch_store_series"][0]["type"], "gauge");

  const json info = get(agent.port(), "/api/v1/status/runtimeinfo")["data"];
  EXPECT_EQ(info["reloadConfigSuccess"], true);
  EXPECT_EQ(info["storageRetention"], "30d or 1GiB");
  EXPECT_GT(info["goroutineCount"].get<int>(), 1);
  const json flags = get(agent.port(), "/api/v1/status/flags")["data"];
  EXPECT_EQ(flags["listen"], "127.0.0.1:0");
  EXPECT_EQ(flags["alertmanager-url"], "<secret>");
  EXPECT_EQ(flags["detect.xid.hold"], "1h");
  const std::string yaml = get(agent.port(), "/api/v1/status/config")["data"]["yaml"];
  EXPECT_NE(yaml.find("interval: \"100ms\"\n"), std::string::npos) << yaml;
  EXPECT_EQ(yaml.find("s3cret"), std::string::npos);
  EXPECT_EQ(get(agent.port(), "/api/v1/query_exemplars?query=test")["data"], json::array());
  EXPECT_EQ(get(agent.port(), "/api/v1/status/buildinfo")["data"]["version"], "2.42.0");
  EXPECT_TRUE(agent.stop());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpuwatch
