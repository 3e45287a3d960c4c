// A fleet on one machine, its remote-write half: three agents on three simulated nodes (different scenarios,
// one with faults), each sending to one Prometheus (which also scrapes them, under a job of its own) and one
// VictoriaMetrics. Fleet-wide queries (per node, per model, fleet utilization) answer the same on both.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "prometheus_server.h"
#include "receivers.h"
#include "run_process.h"
#include "temp_dir.h"

namespace gpuwatch::test {
namespace {

const std::string kBinary = std::string(GPUWATCH_BINARY_DIR) + "/gpuwatch";

std::string scenario(const std::string& name) {
  return std::string(GPUWATCH_SOURCE_DIR) + "/scenarios/" + name;
}

// Series (its labels as JSON text) -> value, of an instant query's vector.
std::map<std::string, double> instant(int port, const std::string& query, double time) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(30);
  const httplib::Params params{{"query", query}, {"time", std::to_string(time)}};
  const auto res = client.Post("/api/v1/query", params);
  if (!res || res->status != 200) throw std::runtime_error(query + ": " + (res ? res->body : "no answer"));
  const auto body = nlohmann::json::parse(res->body);  // kept: the loop walks inside it
  std::map<std::string, double> out;
  for (const auto& s : body.at("data").at("result"))
    out[s.at("metric").dump()] = std::stod(s.at("value").at(1).get<std::string>());
  return out;
}

TEST(Fleet, ThreeNodesRemoteWritingAnswerTheSameFleetQueriesOnPrometheusAndVictoriaMetrics) {
  store::test::TempDir dir;
  auto victoria = make_victoria_metrics_receiver();
  victoria->start();
  const int vm_port = victoria->port();
  const std::vector<std::string> scenarios{
      scenario("healthy-8xh200.yaml"), scenario("noisy-neighbour-4xh200.yaml"),
      std::string(GPUWATCH_SOURCE_DIR) + "/tests/query/steady-4xh200.yaml"};
  std::vector<int> agent_ports;
  for (std::size_t i = 0; i < scenarios.size(); ++i) agent_ports.push_back(free_port());
  std::string targets;
  for (int p : agent_ports)
    targets += (targets.empty() ? "'" : ", '") + std::string("127.0.0.1:") + std::to_string(p) + "'";
  // Prometheus scrapes the agents as job "scraped", apart from the series they write (job "gpuwatch").
  auto prometheus = make_scraping_prometheus_receiver(
      "  - job_name: scraped\n    static_configs:\n      - targets: [" + targets + "]\n");
  prometheus->start();
  std::vector<std::unique_ptr<BackgroundProcess>> agents;
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    agents.push_back(std::make_unique<BackgroundProcess>(std::vector<std::string>{
        kBinary, "agent", "--listen", "127.0.0.1:" + std::to_string(agent_ports[i]), "--sim-scenario",
        scenarios[i], "--data-dir", dir.path() + "/agent" + std::to_string(i), "--kmsg", "", "--interval",
        "500ms", "--remote-write-url",
        "http://127.0.0.1:" + std::to_string(prometheus->port()) + "/api/v1/write", "--remote-write-url",
        "http://127.0.0.1:" + std::to_string(vm_port) + "/api/v1/write"}));
  }
  // Wall time: the agents sample every half second and send at once.
  std::this_thread::sleep_for(std::chrono::seconds(8));
  const double at =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count() - 3;
  std::this_thread::sleep_for(std::chrono::seconds(2));
  httplib::Client("127.0.0.1", vm_port).Get("/internal/force_flush");

  const std::vector<std::string> fleet_queries{
      "count by (instance) (gpu_up{job=\"gpuwatch\"})",
      "sum by (instance) (gpu_memory_used_bytes{job=\"gpuwatch\"})",
      "count by (name) (gpu_info{job=\"gpuwatch\"})",
      "avg(gpu_utilization_ratio{job=\"gpuwatch\"})",
      "max by (instance) (gpu_temperature_celsius{job=\"gpuwatch\"})",
  };
  for (const auto& q : fleet_queries) {
    const auto prom = instant(prometheus->port(), q, at);
    const auto vic = instant(vm_port, q, at);
    EXPECT_FALSE(prom.empty()) << q;
    ASSERT_EQ(prom.size(), vic.size()) << q;
    for (const auto& [series, value] : prom) {
      const auto it = vic.find(series);
      ASSERT_NE(it, vic.end()) << q << ": victoria-metrics lacks " << series;
      EXPECT_LE(std::abs(it->second - value), 1e-9 * std::max(1.0, std::abs(value))) << q << " " << series;
    }
  }
  EXPECT_EQ(instant(prometheus->port(), "count by (instance) (gpu_up{job=\"gpuwatch\"})", at).size(), 3u);
  // Scraped too, beside what the agents write: every agent is a healthy target.
  const auto targets_reply = httplib::Client("127.0.0.1", prometheus->port()).Get("/api/v1/targets");
  ASSERT_TRUE(targets_reply);
  const auto active = nlohmann::json::parse(targets_reply->body).at("data").at("activeTargets");
  ASSERT_EQ(active.size(), 3u);
  for (const auto& t : active) EXPECT_EQ(t.at("health"), "up") << t.dump();
}

}  // namespace
}  // namespace gpuwatch::test
