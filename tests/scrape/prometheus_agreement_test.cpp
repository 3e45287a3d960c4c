// A real Prometheus and the agent's scraper read the simulator's model servers at the same frozen moment of a
// lockstep scenario: every series Prometheus stored (labels and value) is one the scraper produced, and the
// other way round, the report series included (up, scrape_samples_scraped).
#include <gtest/gtest.h>
#include <httplib.h>

#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "prometheus_server.h"
#include "scrape/target_scraper.h"
#include "sim_serve/sim_services.h"
#include "sim_support.h"

namespace gpuwatch {
namespace {

constexpr const char* kAgreementScenario = R"(node: {hostname: agree-node, seed: 9, mode: lockstep}
devices:
  - {model: H200, count: 3}
processes:
  - {pid: 600, gpu: 0, name: python3, memory: 60GiB, sm_util: 60}
  - {pid: 601, gpu: 1, name: tritonserver, memory: 30GiB, sm_util: 40}
  - {pid: 602, gpu: 2, name: text-generation, memory: 30GiB, sm_util: 40}
faults:
  - {type: thermal_throttle, gpu: 0, at: 60s, duration: forever}
services:
  - {model: llama, kind: vllm, pid: 600, port: 1, traffic: 10, latency: 2s}
  - {model: resnet, kind: triton, pid: 601, port: 2, traffic: 50, latency: 50ms}
  - {model: mistral, kind: tgi, pid: 602, port: 3, traffic: 20, latency: 1s}
)";

using Series = std::map<std::string, std::string>;  // labels, __name__ included

// Report series whose value depends on the scraper's own timing or history, not on the target's answer.
bool comparable(const std::string& name) {
  return name != "scrape_duration_seconds" && name != "scrape_series_added";
}

TEST(PrometheusAgreement, PrometheusAndTheScraperSeeTheSameSeriesAndValues) {
  test::SimScenario scenario(kAgreementScenario);
  test::Sim sim;
  SimServices services(sim.library(), true);
  sim.advance_to(150);  // in the slowdown; time stands still from here on

  std::string targets;
  for (const auto& s : services.services()) {
    targets += std::string(targets.empty() ? "" : ", ") + "'127.0.0.1:" + std::to_string(s.port) + "'";
  }
  test::PrometheusServer prometheus(
      test::PrometheusServer::Scraping{"global: {scrape_interval: 1s, scrape_timeout: 900ms}\n"
                                       "scrape_configs:\n"
                                       "  - job_name: svc\n"
                                       "    static_configs: [{targets: [" +
                                       targets + "]}]\n"});

  std::map<Series, double> ours;
  for (const auto& s : services.services()) {
    ScrapeTargetConfig c;
    c.job = "svc";
    c.url = "http://127.0.0.1:" + std::to_string(s.port) + "/metrics";
    scrape::TargetScraper target(scrape::make_target(c));
    const auto r = target.scrape(1000);
    ASSERT_TRUE(r->up) << r->error;
    for (const auto& sample : r->samples) {
      if (!comparable(label_value(sample.labels, "__name__"))) continue;
      ours[Series(sample.labels.begin(), sample.labels.end())] = sample.value;
    }
  }

  httplib::Client client("127.0.0.1", prometheus.port());
  std::map<Series, double> theirs;
  std::string last_answer;
  for (int i = 0; i < 200; ++i) {  // until Prometheus has scraped all three
    const auto res =
        client.Get("/api/v1/query?query=" + httplib::detail::encode_query_param("{job=\"svc\"}"));
    last_answer = res ? std::to_string(res->status) + " " + res->body.substr(0, 300) : "no answer";
    if (res && res->status == 200) {
      theirs.clear();
      const nlohmann::json answer = nlohmann::json::parse(res->body);
      for (const auto& item : answer["data"]["result"]) {
        Series labels = item["metric"].get<Series>();
        if (!comparable(labels["__name__"])) continue;
        theirs[labels] = std::stod(item["value"][1].get<std::string>());
      }
      std::size_t up = 0;
      for (const auto& [labels, value] : theirs) up += labels.at("__name__") == "up" && value == 1 ? 1 : 0;
      if (up == services.services().size()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GT(ours.size(), 100u);
  if (theirs.size() != ours.size()) {
    const auto t = client.Get("/api/v1/targets");
    ADD_FAILURE() << "Prometheus's last answer: " << last_answer
                  << "\nits targets: " << (t ? t->body.substr(0, 600) : "no answer");
  }
  ASSERT_EQ(theirs.size(), ours.size());
  for (const auto& [labels, value] : ours) {
    const auto it = theirs.find(labels);
    if (it == theirs.end()) {
      ADD_FAILURE() << "Prometheus lacks " << ::testing::PrintToString(labels);
      continue;
    }
    EXPECT_DOUBLE_EQ(it->second, value) << ::testing::PrintToString(labels);
  }
}

}  // namespace
}  // namespace gpuwatch
