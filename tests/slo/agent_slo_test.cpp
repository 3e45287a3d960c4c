// SLOs through the whole agent: a Sloth file named in the options, a scraped Triton-shaped target whose
// errors burn the budget, the SLO sink's figures on /api/v1/slos and its page in the alert engine beside the
// detectors' alerts, labelled slo, service and severity, saying that no GPU cause was found; the same figures
// on /metrics.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "agent/agent.h"
#include "agent/collector_setup.h"
#include "agent_json.h"
#include "sim_support.h"

namespace gpuwatch {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

TEST(AgentSlo, ABurningServicePagesThroughTheAlertEngine) {
  std::atomic<double> success{0}, failure{0};
  httplib::Server target;
  target.Get("/metrics", [&](const httplib::Request&, httplib::Response& res) {
    success = success + 50;  // half of the requests fail
    failure = failure + 50;
    res.set_content("nv_inference_request_success{model=\"bert\",version=\"1\"} " +
                        std::to_string(success.load()) +
                        "\nnv_inference_request_failure{model=\"bert\",version=\"1\",reason=\"REJECTED\"} " +
                        std::to_string(failure.load()) + "\n",
                    "text/plain; version=0.0.4");
  });
  const int target_port = target.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { target.listen_after_bind(); });

  test::TempDir dir;
  const std::string spec = dir.path() + "/bert.yaml";
  std::ofstream(spec) << R"(version: "prometheus/v1"
service: "bert-ranker"
slos:
  - name: "availability"
    objective: 99.9
    sli:
      events:
        error_query: sum(rate(nv_inference_request_failure{model="bert"}[{{.window}}]))
        total_query: sum(rate(nv_inference_request_success{model="bert"}[{{.window}}])) + sum(rate(nv_inference_request_failure{model="bert"}[{{.window}}]))
)";
  AgentOptions o;
  o.listen = "127.0.0.1:0";
  o.interval = 100ms;
  o.store = false;
  o.kmsg = "";
  o.sim_scenario = std::string(GPUWATCH_SOURCE_DIR) + "/scenarios/healthy-8xh200.yaml";
  o.nvml_library = std::string(GPUWATCH_BINARY_DIR) + "/sim-lib/libnvidia-ml.so.1";
  ASSERT_EQ(prepare_simulator(o), "");
  ScrapeTargetConfig c;
  c.job = "triton";
  c.url = "http://127.0.0.1:" + std::to_string(target_port) + "/metrics";
  c.interval = 200ms;
  c.timeout = 150ms;
  o.scrape.targets = {c};
  o.slo_files = spec;
  {
    Agent agent(o);
    agent.start();
    json page;
    for (int i = 0; i < 200 && page.is_null(); ++i) {
      const json alerts = test::get_json(agent.port(), "/api/v1/alerts");
      if (alerts.is_object()) {
        for (const auto& a : alerts["data"]["alerts"]) {
          if (a["labels"].value("alertname", "") == "SloErrorBudgetBurn" &&
              a["labels"].value("severity", "") == "page")
            page = a;
        }
      }
      if (page.is_null()) std::this_thread::sleep_for(50ms);
    }
    ASSERT_FALSE(page.is_null()) << "no page within 10 s";
    EXPECT_EQ(page["labels"]["slo"], "availability");
    EXPECT_EQ(page["labels"]["service"], "bert-ranker");
    EXPECT_NE(page["annotations"]["description"].get<std::string>().find("GPU cause: no GPU cause found"),
              std::string::npos);
    const json slos = test::get_json(agent.port(), "/api/v1/slos");
    ASSERT_TRUE(slos.is_object());
    EXPECT_EQ(slos["status"], "success");
    ASSERT_EQ(slos["data"].size(), 1u);
    const json& s = slos["data"][0];
    EXPECT_EQ(s["slo"], "availability");
    EXPECT_DOUBLE_EQ(s["objective"].get<double>(), 0.999);
    EXPECT_NEAR(s["sli"].get<double>(), 0.5, 0.05);
    EXPECT_NEAR(s["burnRate"]["5m"].get<double>(), 500, 50);
    EXPECT_LT(s["budgetRemaining"].get<double>(), 0);
    EXPECT_EQ(s["alertState"], "page");
    // The same figures on /metrics.
    httplib::Client client("127.0.0.1", agent.port());
    const auto metrics = client.Get("/metrics");
    ASSERT_TRUE(metrics);
    const std::string& text = metrics->body;
    EXPECT_NE(text.find("gpuwatch_slo_error_budget_state{slo=\"availability\",service=\"bert-ranker\","
                        "state=\"page\"} 1\n"),
              std::string::npos)
        << text;
    const std::string objective =
        "gpuwatch_slo_objective_ratio{slo=\"availability\",service=\"bert-ranker\"} ";
    ASSERT_NE(text.find(objective), std::string::npos);
    EXPECT_NEAR(std::stod(text.substr(text.find(objective) + objective.size())), 0.999, 1e-9);
    for (const char* window : {"5m", "30m", "1h", "2h", "6h", "1d", "3d", "period"}) {
      const std::string burn =
          "gpuwatch_slo_burn_rate{slo=\"availability\",service=\"bert-ranker\",window=\"" +
          std::string(window) + "\"} ";
      const auto at = text.find(burn);
      ASSERT_NE(at, std::string::npos) << burn;
      EXPECT_GT(std::stod(text.substr(at + burn.size())), 100) << burn;  // half failing: about 500x
      EXPECT_NE(text.find("gpuwatch_slo_sli_ratio{slo=\"availability\",service=\"bert-ranker\",window=\"" +
                          std::string(window) + "\"} "),
                std::string::npos);
    }
    EXPECT_NE(
        text.find(
            "gpuwatch_slo_error_budget_remaining_ratio{slo=\"availability\",service=\"bert-ranker\"} -"),
        std::string::npos);
    EXPECT_TRUE(agent.stop());
  }
  target.stop();
  serving.join();
}

}  // namespace
}  // namespace gpuwatch
