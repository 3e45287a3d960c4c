// The agent as a process, on the simulator: what it serves, how it stops, and how it degrades.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "run_process.h"

namespace gpuwatch::test {
namespace {

constexpr auto kStartupLimit = std::chrono::seconds(20);

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/gpuwatch-agent-test-" + std::to_string(::getpid()) + "-" + name;
  std::ofstream(path) << text;
  return path;
}

// A running agent listening on a free loopback port, found from its start-up log line.
class Agent {
 public:
  explicit Agent(std::vector<std::string> args, std::map<std::string, std::string> env = {},
                 const std::string& cwd = {}) {
    // History has tests of its own (tests/store); these agents keep none, so they never touch a data dir.
    std::vector<std::string> argv = {kGpuwatchBinary, "agent", "--listen", "127.0.0.1:0", "--store", "off"};
    argv.insert(argv.end(), args.begin(), args.end());
    env.emplace("GPUWATCH_SIM_EPOCH", std::to_string(std::time(nullptr) - 3600));
    process_ = std::make_unique<BackgroundProcess>(argv, env, cwd);
    const AgentListening listening = wait_for_listening(*process_, kStartupLimit);
    port_ = listening.port;
    exit_code_ = listening.exit_code;
  }
  int port() const { return port_; }
  std::optional<int> early_exit() const { return exit_code_; }
  BackgroundProcess& process() { return *process_; }

  httplib::Result get(const std::string& path, const httplib::Headers& headers = {}) const {
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(5, 0);
    return client.Get(path.c_str(), headers);
  }
  // Polls until `path` answers `status` (the agent works in wall time; there is no scenario clock to
  // advance).
  bool wait_for_status(const std::string& path, int status) const {
    const auto deadline = std::chrono::steady_clock::now() + kStartupLimit;
    while (std::chrono::steady_clock::now() < deadline) {
      auto r = get(path);
      if (r && r->status == status) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

 private:
  std::unique_ptr<BackgroundProcess> process_;
  int port_ = 0;
  std::optional<int> exit_code_;
};

TEST(Agent, ServesMetricsThatPromtoolAcceptsWithoutAnyFinding) {
  Agent agent({"--sim-scenario", kScenariosDir + "incidents-8xh200.yaml"});
  ASSERT_GT(agent.port(), 0) << agent.process().stderr_text();
  ASSERT_TRUE(agent.wait_for_status("/readyz", 200));
  auto r = agent.get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string path = temp_file("metrics.prom", r->body);
  auto check = run_process({"/bin/sh", "-c", "promtool check metrics < " + path});
  std::remove(path.c_str());
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_EQ(check.out + check.err, "") << "promtool must report no finding at all";
  // One GPU fell off the bus an hour ago: it is down, the other seven are up.
  std::istringstream lines(r->body);
  int up = 0, down = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("gpu_up{")) (line.ends_with(" 1") ? up : down)++;
  }
  EXPECT_EQ(up, 7);
  EXPECT_EQ(down, 1);
}

TEST(Agent, NegotiatesOpenMetricsGzipAndDcgmNaming) {
  Agent agent({"--sim-scenario", kScenariosDir + "healthy-8xh200.yaml"});
  ASSERT_GT(agent.port(), 0) << agent.process().stderr_text();
  ASSERT_TRUE(agent.wait_for_status("/readyz", 200));
  auto om =
      agent.get("/metrics", {{"Accept", "application/openmetrics-text;version=1.0.0,text/plain;q=0.5"}});
  ASSERT_TRUE(om);
  EXPECT_NE(om->get_header_value("Content-Type").find("application/openmetrics-text"), std::string::npos);
  EXPECT_TRUE(om->body.ends_with("# EOF\n"));
  auto gz = agent.get("/metrics", {{"Accept-Encoding", "gzip"}});
  ASSERT_TRUE(gz);  // httplib decompresses; the header says what was sent
  EXPECT_EQ(gz->get_header_value("Content-Encoding"), "gzip");
  auto dcgm = agent.get("/metrics?naming=dcgm");
  ASSERT_TRUE(dcgm);
  EXPECT_NE(dcgm->body.find("DCGM_FI_DEV_GPU_UTIL{"), std::string::npos);
  auto json = agent.get("/api/v1/gpus");
  ASSERT_TRUE(json);
  EXPECT_EQ(json->status, 200);
  EXPECT_NE(json->body.find("\"devices\""), std::string::npos);
}

TEST(Agent, ServesItsRunbooksFromAnyWorkingDirectoryWithoutARunbookFolder) {
  const std::filesystem::path cwd =
      std::filesystem::temp_directory_path() / ("gpuwatch-agent-cwd-" + std::to_string(::getpid()));
  std::filesystem::create_directories(cwd);
  Agent agent({"--sim-scenario", kScenariosDir + "healthy-8xh200.yaml"}, {}, cwd.string());
  ASSERT_GT(agent.port(), 0) << agent.process().stderr_text();
  auto runbook = agent.get("/runbooks/GpuLost");
  std::filesystem::remove_all(cwd);
  ASSERT_TRUE(runbook);
  EXPECT_EQ(runbook->status, 200) << runbook->body;
  std::ifstream file(std::string(GPUWATCH_SOURCE_DIR) + "/docs/runbooks/GpuLost.md");
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_EQ(runbook->body, text.str());
}

// On port 0 the system picks the port: the start-up log, the alerts' links (the default external URL) and so
// the Alertmanager and webhook messages name that one, never ":0".
TEST(Agent, OnPortZeroNamesTheBoundPortInItsLogAndItsAlertLinks) {
  Agent agent({"--sim-scenario", kScenariosDir + "healthy-8xh200.yaml"});
  ASSERT_GT(agent.port(), 0) << agent.process().stderr_text();
  const std::string address = "127.0.0.1:" + std::to_string(agent.port());
  const std::string log = agent.process().stderr_text();
  EXPECT_NE(log.find("serving on " + address + " (port "), std::string::npos) << log;
  EXPECT_NE(log.find("alert links to http://" + address + ","), std::string::npos) << log;
  EXPECT_EQ(log.find("127.0.0.1:0"), std::string::npos) << log;

  // The Watchdog fires from the first evaluation on, with a link to its runbook on this agent.
  std::string runbook_url;
  const auto deadline = std::chrono::steady_clock::now() + kStartupLimit;
  while (runbook_url.empty() && std::chrono::steady_clock::now() < deadline) {
    if (auto r = agent.get("/api/v1/alerts"); r && r->status == 200) {
      const auto alerts = nlohmann::json::parse(r->body)["data"]["alerts"];
      for (const auto& a : alerts)
        if (a["labels"]["alertname"] == "Watchdog") runbook_url = a["annotations"]["runbook_url"];
    }
    if (runbook_url.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(runbook_url, "http://" + address + "/runbooks/Watchdog");
  auto runbook = agent.get("/runbooks/Watchdog");  // the link leads somewhere
  ASSERT_TRUE(runbook);
  EXPECT_EQ(runbook->status, 200);
}

TEST(Agent, StopsCleanlyOnSigterm) {
  Agent agent({"--sim-scenario", kScenariosDir + "healthy-8xh200.yaml"});
  ASSERT_GT(agent.port(), 0) << agent.process().stderr_text();
  ASSERT_TRUE(agent.wait_for_status("/readyz", 200));
  agent.process().signal(SIGTERM);
  EXPECT_EQ(agent.process().wait_exit(std::chrono::seconds(10)), 0) << agent.process().stderr_text();
}

TEST(Agent, KeepsServingWhileTheDriverHangsAndStillStops) {
  const std::string scenario = temp_file("hang.yaml",
                                         "node: {seed: 3}\n"
                                         "devices:\n  - {model: H200, count: 2}\n"
                                         "faults:\n  - {type: driver_hang, at: 0s}\n");
  Agent agent({"--sim-scenario", scenario, "--interval", "100ms"});
  ASSERT_GT(agent.port(), 0) << agent.process().stderr_text();
  ASSERT_TRUE(agent.wait_for_status("/healthz", 200));
  auto metrics = agent.get("/metrics");
  ASSERT_TRUE(metrics) << "a hung driver must not hang a scrape";
  EXPECT_EQ(metrics->status, 200);
  EXPECT_NE(metrics->body.find("gpuwatch_build_info"), std::string::npos);
  auto ready = agent.get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 503) << "never had a complete collection";
  agent.process().signal(SIGTERM);
  EXPECT_TRUE(agent.process().wait_exit(std::chrono::seconds(10)).has_value())
      << "shutdown must not wait on the hang";
  std::remove(scenario.c_str());
}

TEST(Agent, MarksOnlyTheHungGpuStale) {
  const std::string scenario = temp_file("hung-call.yaml",
                                         "node: {seed: 3}\n"
                                         "devices:\n  - {model: H200, count: 2}\n"
                                         "faults:\n  - {type: hung_call, gpu: 1, at: 0s}\n");
  Agent agent({"--sim-scenario", scenario, "--interval", "100ms", "--deadline", "50ms"});
  ASSERT_GT(agent.port(), 0) << agent.process().stderr_text();
  ASSERT_TRUE(agent.wait_for_status("/healthz", 200));
  const auto deadline = std::chrono::steady_clock::now() + kStartupLimit;
  std::string body;
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = agent.get("/metrics");
    if (r && r->body.find("gpu_up{gpu=\"0\"") != std::string::npos) {
      body = r->body;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_NE(body.find("gpu_utilization_ratio{gpu=\"0\""), std::string::npos) << body;
  EXPECT_EQ(body.find("gpu_utilization_ratio{gpu=\"1\""), std::string::npos) << "GPU 1 was never read";
  agent.process().signal(SIGTERM);
  EXPECT_TRUE(agent.process().wait_exit(std::chrono::seconds(10)).has_value());
  std::remove(scenario.c_str());
}

TEST(Agent, WithoutALibraryServesItsOwnMetricsAndIsNotReady) {
  Agent agent({"--nvml-lib", "/nonexistent/libnvidia-ml.so.1"});
  ASSERT_GT(agent.port(), 0) << agent.process().stderr_text();
  auto ready = agent.get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 503);
  auto metrics = agent.get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_NE(metrics->body.find("gpuwatch_build_info"), std::string::npos);
  EXPECT_NE(agent.process().stderr_text().find("/nonexistent/libnvidia-ml.so.1"), std::string::npos);
}

// No library is not silence: /metrics says NVML fails and why, and GpuMonitoringDown pages at once.
TEST(Agent, WithoutALibraryReportsTheReasonAndRaisesGpuMonitoringDown) {
  Agent agent({"--nvml-library", "/nonexistent/libnvidia-ml.so.1"});
  ASSERT_GT(agent.port(), 0) << agent.process().stderr_text();
  // The first collection and its evaluation run beside the server's start: poll for them.
  const std::regex down(
      R"("labels":\{"alertname":"GpuMonitoringDown","severity":"page","source":"nvml"\},[^}]*"state":"firing")");
  std::string metrics;
  std::string alerts;
  for (const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
       std::chrono::steady_clock::now() < deadline;
       std::this_thread::sleep_for(std::chrono::milliseconds(20))) {
    auto m = agent.get("/metrics");
    auto a = agent.get("/api/v1/alerts");
    metrics = m ? m->body : "";
    alerts = a ? a->body : "";
    if (metrics.find("gpuwatch_source_success") != std::string::npos && std::regex_search(alerts, down))
      break;
  }
  EXPECT_NE(metrics.find("gpuwatch_source_success{source=\"nvml\"} 0"), std::string::npos) << metrics;
  EXPECT_NE(
      metrics.find("gpuwatch_source_error_info{source=\"nvml\",reason=\"library_not_loaded\",message=\""),
      std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("/nonexistent/libnvidia-ml.so.1: cannot open shared object file"),
            std::string::npos);
  EXPECT_TRUE(std::regex_search(alerts, down)) << alerts;
}

TEST(Agent, ReportsATakenPortAndExits) {
  Agent first({"--sim-scenario", kScenariosDir + "healthy-8xh200.yaml"});
  ASSERT_GT(first.port(), 0);
  auto second = run_process({kGpuwatchBinary, "agent", "--store", "off", "--sim-scenario",
                             kScenariosDir + "healthy-8xh200.yaml", "--listen",
                             "127.0.0.1:" + std::to_string(first.port())});
  EXPECT_EQ(second.exit_code, 5);
  EXPECT_NE(second.err.find("127.0.0.1:" + std::to_string(first.port())), std::string::npos) << second.err;
}

TEST(Agent, SighupReloadsTheNaming) {
  const std::string config = temp_file("reload.yaml", "naming: native\n");
  Agent agent({"--config", config, "--sim-scenario", kScenariosDir + "healthy-8xh200.yaml"});
  ASSERT_GT(agent.port(), 0) << agent.process().stderr_text();
  ASSERT_TRUE(agent.wait_for_status("/readyz", 200));
  ASSERT_NE(agent.get("/metrics")->body.find("gpu_utilization_ratio"), std::string::npos);
  std::ofstream(config) << "naming: dcgm\n";
  agent.process().signal(SIGHUP);
  bool switched = false;
  const auto deadline = std::chrono::steady_clock::now() + kStartupLimit;
  while (!switched && std::chrono::steady_clock::now() < deadline) {
    auto r = agent.get("/metrics");
    switched = r && r->body.find("DCGM_FI_DEV_GPU_UTIL") != std::string::npos;
    if (!switched) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(switched) << agent.process().stderr_text();
  // The simulator found next to gpuwatch at start is found again: nothing else changed, nothing is said to.
  EXPECT_TRUE(wait_for_log(agent.process(), "reloaded", kStartupLimit)) << agent.process().stderr_text();
  EXPECT_EQ(agent.process().stderr_text().find("nvml_library"), std::string::npos)
      << agent.process().stderr_text();
  std::remove(config.c_str());
}

}  // namespace
}  // namespace gpuwatch::test
