// NVIDIA's dcgm-exporter Grafana dashboard (grafana/dcgm-exporter-dashboard.json of NVIDIA/dcgm-exporter)
// with the agent itself as its data source: its 8 panel queries and its variable queries, the variables
// expanded as Grafana expands them, asked of the agent (its own history; /metrics in native naming) and of a
// real Prometheus that scrapes the agent's /metrics?naming=dcgm. Every answer must hold data, and the agent's
// must be Prometheus's: the same series (names and every label, instance and job included) with the same
// values, as instant queries and as range queries over the same window.
//
// Scrape times are not the agent's sample times, so the two are compared where they cannot differ: on a
// node whose readings hold still. Its GPUs run constant loads (different ones, so that a value given to the
// wrong GPU shows), its temperatures have settled, and its scenario clock runs 1000 times slower than the
// wall clock, so the simulator's per-scenario-second inputs (power noise) do not step while the test runs.
// Both sides are asked at times after Prometheus's first scrape, where each has a sample within the lookback.
// Values agree to 1e-6 relative: the profiling ratios (tensor activity) are computed over the agent's
// sample intervals in wall time and wobble in the ninth digit; everything else is equal to the bit.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "prometheus_server.h"
#include "run_process.h"

namespace gpuwatch::test {
namespace {

using nlohmann::json;

const std::string kBinary = std::string(GPUWATCH_BINARY_DIR) + "/gpuwatch";
const std::string kScenario = std::string(GPUWATCH_SOURCE_DIR) + "/tests/query/steady-4xh200.yaml";

// The dashboard's panels, as its JSON writes them.
const std::vector<std::string> kPanels = {
    R"(DCGM_FI_DEV_GPU_TEMP{instance=~"$instance", gpu=~"$gpu"})",
    R"(avg(DCGM_FI_DEV_GPU_TEMP{instance=~"$instance", gpu=~"$gpu"}))",
    R"(DCGM_FI_DEV_POWER_USAGE{instance=~"$instance", gpu=~"$gpu"})",
    R"(sum(DCGM_FI_DEV_POWER_USAGE{instance=~"$instance", gpu=~"$gpu"}))",
    R"(DCGM_FI_DEV_SM_CLOCK{instance=~"$instance", gpu=~"$gpu"} * 1000000)",
    R"(DCGM_FI_DEV_GPU_UTIL{instance=~"$instance", gpu=~"$gpu"})",
    R"(DCGM_FI_DEV_FB_USED{instance=~"$instance", gpu=~"$gpu"})",
    R"(DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{instance=~"$instance", gpu=~"$gpu"})",
};

// Grafana's interpolation of a Prometheus query variable (interpolateQueryExpr and its two escapes): a
// variable that is neither multi-value nor has "All" gets its value with backslashes and single quotes
// escaped; otherwise each value is regex-escaped, and several are joined as (a|b).
struct Variable {
  bool multi = true;
  bool include_all = true;
};

std::string regular_escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\'')
      out += "\\\\'";
    else
      out += c;
  }
  return out;
}

std::string regex_escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\\\\\";
    else if (std::string_view("$^*{}[]+?.()|").find(c) != std::string_view::npos)
      out += std::string("\\\\") + c;
    else
      out += c;
  }
  return out;
}

std::string interpolate(const Variable& var, const std::vector<std::string>& values) {
  if (!var.multi && !var.include_all) return regular_escape(values.at(0));
  if (values.size() == 1) return regex_escape(values[0]);
  std::string out = "(";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? "|" : "") + regex_escape(values[i]);
  return out + ")";
}

std::string expand(std::string expr, const std::map<std::string, std::string>& values) {
  for (const auto& [name, value] : values) {
    for (auto at = expr.find("$" + name); at != std::string::npos;
         at = expr.find("$" + name, at + value.size()))
      expr.replace(at, name.size() + 1, value);
  }
  return expr;
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// One side's Prometheus API: GET with the parameters URL-encoded.
json ask(int port, const std::string& path, const httplib::Params& params) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(10, 0);
  const auto r = client.Get(path, params, httplib::Headers{});
  if (!r) return json{{"status", "no answer"}};
  return json::parse(r->body, nullptr, false);
}

// A query result's series as labels (a JSON object) -> [[t, "v"], ...]; an instant vector's one point each.
std::map<std::string, json> by_series(const json& data) {
  std::map<std::string, json> out;
  for (const auto& s : data["result"]) {
    out[s["metric"].dump()] = data["resultType"] == "matrix" ? s["values"] : json::array({s["value"]});
  }
  return out;
}

// The agent's answer is Prometheus's: the same series, the same times, values within 1e-6 relative.
void expect_same_answer(const json& ours, const json& theirs, const std::string& what) {
  ASSERT_EQ(ours["status"], "success") << what << ": " << ours.dump();
  ASSERT_EQ(theirs["status"], "success") << what << ": " << theirs.dump();
  EXPECT_EQ(ours["data"]["resultType"], theirs["data"]["resultType"]) << what;
  const auto a = by_series(ours["data"]);
  const auto b = by_series(theirs["data"]);
  EXPECT_FALSE(a.empty()) << what << ": no data from the agent";
  ASSERT_EQ(a.size(), b.size()) << what << "\nagent: " << ours.dump() << "\nprometheus: " << theirs.dump();
  for (const auto& [labels, points] : b) {
    const auto it = a.find(labels);
    ASSERT_NE(it, a.end()) << what << ": the agent lacks " << labels << "\nagent: " << ours.dump();
    ASSERT_EQ(it->second.size(), points.size()) << what << " " << labels;
    for (std::size_t i = 0; i < points.size(); ++i) {
      EXPECT_EQ(it->second[i][0], points[i][0]) << what << " " << labels;
      const double x = std::stod(it->second[i][1].get<std::string>());
      const double y = std::stod(points[i][1].get<std::string>());
      EXPECT_LE(std::fabs(x - y), 1e-6 * std::max(std::fabs(y), 1.0))
          << what << " " << labels << " at " << points[i][0];
    }
  }
}

class GrafanaDashboard : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    data_dir_ = (std::filesystem::temp_directory_path() / "gpuwatch-dashboard-XXXXXX").string();
    ASSERT_NE(::mkdtemp(data_dir_.data()), nullptr);
    // Scenario second 7200.5 now: loads long settled, and the next step of the slowed clock 500 s away.
    const auto epoch = static_cast<long long>(std::time(nullptr)) - 7'200'500;
    agent_ = std::make_unique<BackgroundProcess>(
        std::vector<std::string>{kBinary, "agent", "--listen", "127.0.0.1:0", "--sim-scenario", kScenario,
                                 "--data-dir", data_dir_, "--kmsg", ""},
        std::map<std::string, std::string>{{"GPUWATCH_SIM_EPOCH", std::to_string(epoch)},
                                           {"GPUWATCH_SIM_TIME_SCALE", "0.001"}});
    agent_port_ = wait_for_listening(*agent_, std::chrono::seconds(20)).port;
    ASSERT_NE(agent_port_, 0) << agent_->stderr_text();
    instance_ = "127.0.0.1:" + std::to_string(agent_port_);
    prometheus_ = std::make_unique<PrometheusServer>(
        PrometheusServer::Scraping{"global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                                   "scrape_configs:\n"
                                   "  - job_name: gpuwatch\n"
                                   "    metrics_path: /metrics\n"
                                   "    params:\n      naming: [dcgm]\n"
                                   "    static_configs:\n      - targets: ['" +
                                   instance_ + "']\n"});
    // Prometheus's first sample, once it has scraped for long enough to hold a window both can answer.
    for (int i = 0; i < 600 && !ready(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }

  // True once Prometheus has 14 s of scrapes; sets first_scrape_.
  static bool ready() {
    const json r =
        ask(prometheus_->port(), "/api/v1/query",
            {{"query", "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"}[5m]"}, {"time", std::to_string(now_seconds())}});
    if (r["status"] != "success" || r["data"]["result"].empty()) return false;
    const json& values = r["data"]["result"][0]["values"];
    first_scrape_ = values[0][0].get<double>();
    return values.size() >= 8 && now_seconds() - first_scrape_ >= 14;
  }

  static void TearDownTestSuite() {
    prometheus_.reset();
    if (agent_) {
      agent_->signal(SIGTERM);
      agent_->wait_exit(std::chrono::seconds(10));
    }
    agent_.reset();
    std::error_code ec;
    std::filesystem::remove_all(data_dir_, ec);
  }

  // Both sides, as instant queries at `t` and as range queries over the window Grafana would ask for (start
  // and end aligned to the step), each window inside what Prometheus scraped.
  static void expect_same(const std::string& expr) {
    const double t = std::floor(now_seconds()) - 1;
    const httplib::Params instant{{"query", expr}, {"time", std::to_string(t)}};
    expect_same_answer(ask(agent_port_, "/api/v1/query", instant),
                       ask(prometheus_->port(), "/api/v1/query", instant), "instant " + expr);
    constexpr double kStep = 2;
    const double start = std::ceil((first_scrape_ + 1) / kStep) * kStep;
    const double end = std::floor(t / kStep) * kStep;
    const httplib::Params range{
        {"query", expr}, {"start", std::to_string(start)}, {"end", std::to_string(end)}, {"step", "2"}};
    expect_same_answer(ask(agent_port_, "/api/v1/query_range", range),
                       ask(prometheus_->port(), "/api/v1/query_range", range), "range " + expr);
  }

  // A variable query as Grafana makes it: label_values(<match>, <label>) -> /api/v1/label/<label>/values
  // with match[], the dashboard's range (now-15m..now, in whole seconds) and the limit Grafana sends.
  static json label_values(const std::string& match, const std::string& label) {
    const double now = now_seconds();
    const httplib::Params params{{"match[]", match},
                                 {"start", std::to_string(static_cast<long long>(now - 900))},
                                 {"end", std::to_string(static_cast<long long>(std::ceil(now)))},
                                 {"limit", "40000"}};
    const json ours = ask(agent_port_, "/api/v1/label/" + label + "/values", params);
    const json theirs = ask(prometheus_->port(), "/api/v1/label/" + label + "/values", params);
    EXPECT_EQ(ours["status"], "success") << ours.dump();
    EXPECT_EQ(ours["data"], theirs["data"]) << "label_values(" << match << ", " << label << ")";
    return ours["data"];
  }

  static inline std::string data_dir_;
  static inline std::unique_ptr<BackgroundProcess> agent_;
  static inline int agent_port_ = 0;
  static inline std::string instance_;
  static inline std::unique_ptr<PrometheusServer> prometheus_;
  static inline double first_scrape_ = 0;
};

TEST_F(GrafanaDashboard, VariablesListTheAgentAndItsGpus) {
  ASSERT_TRUE(ready()) << "Prometheus did not scrape the agent: " << agent_->stderr_text();
  // label_values(DCGM_FI_DEV_GPU_TEMP, instance): the agent, as a Prometheus scraping it names it.
  EXPECT_EQ(label_values("DCGM_FI_DEV_GPU_TEMP", "instance"), json::array({instance_}));
  // label_values(DCGM_FI_DEV_GPU_TEMP, gpu), as the dashboard's JSON has it.
  EXPECT_EQ(label_values("DCGM_FI_DEV_GPU_TEMP", "gpu"), json::parse(R"(["0","1","2","3"])"));
  // label_values(DCGM_FI_DEV_GPU_TEMP{instance="$instance"}, gpu), the form with the instance chosen: `=`
  // takes $instance single-valued (Grafana then only escapes backslashes and quotes)...
  const std::string single = interpolate({false, false}, {instance_});
  EXPECT_EQ(
      label_values(expand(R"(DCGM_FI_DEV_GPU_TEMP{instance="$instance"})", {{"instance", single}}), "gpu"),
      json::parse(R"(["0","1","2","3"])"));
  // ...while the dashboard's multi-value $instance is regex-escaped, which `=` never matches: no GPUs, on
  // Prometheus as on the agent.
  const std::string multi = interpolate({}, {instance_});
  EXPECT_EQ(
      label_values(expand(R"(DCGM_FI_DEV_GPU_TEMP{instance="$instance"})", {{"instance", multi}}), "gpu"),
      json::array());
}

TEST_F(GrafanaDashboard, EveryPanelHasTheDataPrometheusHasWithAllSelected) {
  ASSERT_TRUE(ready());
  // "All" with no custom all value: every option, regex-escaped and joined.
  const std::map<std::string, std::string> all{{"instance", interpolate({}, {instance_})},
                                               {"gpu", interpolate({}, {"0", "1", "2", "3"})}};
  for (const auto& panel : kPanels) expect_same(expand(panel, all));
}

TEST_F(GrafanaDashboard, EveryPanelHasTheDataPrometheusHasForChosenGpus) {
  ASSERT_TRUE(ready());
  for (const std::vector<std::string>& gpus :
       {std::vector<std::string>{"1", "3"}, std::vector<std::string>{"2"}}) {
    const std::map<std::string, std::string> chosen{{"instance", interpolate({}, {instance_})},
                                                    {"gpu", interpolate({}, gpus)}};
    for (const auto& panel : kPanels) expect_same(expand(panel, chosen));
  }
  // A custom all value (".*") stands in the query as it is.
  for (const auto& panel : kPanels) expect_same(expand(panel, {{"instance", ".*"}, {"gpu", ".*"}}));
}

}  // namespace
}  // namespace gpuwatch::test
