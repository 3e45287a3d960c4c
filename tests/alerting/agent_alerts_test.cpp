// The agent binary's alerting end to end, on the simulator's incidents node one hour in (GPU 3 has fallen
// off the bus): the GpuLost alert is evaluated from the snapshots, listed by /api/v1/alerts and by
// `gpuwatch alerts`, exported as ALERTS on /metrics, delivered to a real Alertmanager, and the silence API
// asks for the token. `gpuwatch alerts inhibit-rules` is checked by Alertmanager's own config checker.
#include <gtest/gtest.h>
#include <httplib.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>

#include "../cli/run_process.h"
#include "alertmanager_process.h"
#include "recording_server.h"

namespace gpuwatch::alerting {
namespace {

namespace fs = std::filesystem;

// The alerts named `alertname` in a list of alerts (the agent runs every detector: the incidents node raises
// alerts for other GPUs and the Watchdog too).
nlohmann::json named(const nlohmann::json& alerts, const std::string& alertname) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : alerts) {
    if (a["labels"]["alertname"] == alertname) out.push_back(a);
  }
  return out;
}
const std::string kBinary = std::string(GPUWATCH_BINARY_DIR) + "/gpuwatch";
const std::string kIncidents = std::string(GPUWATCH_SOURCE_DIR) + "/scenarios/incidents-8xh200.yaml";

// The port an agent started with --listen 127.0.0.1:0 reports in its log; 0 when it exited or never said.
int agent_port(test::BackgroundProcess& agent) {
  return test::wait_for_listening(agent, std::chrono::seconds(20)).port;
}

// Polls the agent's /api/v1/alerts (it runs in wall time) until alerts named `alertname` are listed (firing
// ones only, when asked); `all` is the whole list last seen.
struct AlertsSeen {
  nlohmann::json all, named;
};
AlertsSeen wait_for_alerts(int port, const std::string& alertname, bool firing_only = false) {
  httplib::Client client("127.0.0.1", port);
  AlertsSeen seen{nlohmann::json::array(), nlohmann::json::array()};
  for (int i = 0; i < 400 && seen.named.empty(); ++i) {
    if (auto r = client.Get("/api/v1/alerts"); r && r->status == 200) {
      seen.all = nlohmann::json::parse(r->body)["data"]["alerts"];
      for (const auto& a : named(seen.all, alertname))
        if (!firing_only || a["state"] == "firing") seen.named.push_back(a);
    }
    if (seen.named.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return seen;
}

class AgentAlerts : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpuwatch-agent-alerts-" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "am");
    std::ofstream(dir_ / "token") << "t0ken\n";
    am_ = std::make_unique<testing::AlertmanagerProcess>((dir_ / "am").string(), hook_.url() + "/hook");
    ASSERT_TRUE(am_->start());
    agent_ = std::make_unique<test::BackgroundProcess>(
        std::vector<std::string>{kBinary, "agent", "--listen", "127.0.0.1:0", "--sim-scenario", kIncidents,
                                 "--alertmanager-url", am_->url(), "--data-dir", (dir_ / "data").string(),
                                 "--api-token-file", (dir_ / "token").string(), "--alert-labels",
                                 "service=training"},
        std::map<std::string, std::string>{
            {"GPUWATCH_SIM_EPOCH", std::to_string(std::time(nullptr) - 3600)}});
    port_ = agent_port(*agent_);
    ASSERT_NE(port_, 0) << agent_->stderr_text();
  }
  void TearDown() override {
    agent_.reset();
    am_.reset();
    fs::remove_all(dir_);
  }
  httplib::Result get(const std::string& path) const {
    httplib::Client client("127.0.0.1", port_);
    return client.Get(path);
  }
  // Polls the agent (it runs in wall time) until pred holds on the body of path.
  bool wait_for(const std::string& path, const std::function<bool(const std::string&)>& pred) const {
    for (int i = 0; i < 300; ++i) {
      if (auto r = get(path); r && r->status == 200 && pred(r->body)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  fs::path dir_;
  testing::RecordingServer hook_;
  std::unique_ptr<testing::AlertmanagerProcess> am_;
  std::unique_ptr<test::BackgroundProcess> agent_;
  int port_ = 0;
};

TEST_F(AgentAlerts, LostGpuAlertsEverywhere) {
  ASSERT_TRUE(wait_for("/api/v1/alerts", [](const std::string& b) {
    return b.find("GpuLost") != std::string::npos;
  })) << agent_->stderr_text();
  const auto all = nlohmann::json::parse(get("/api/v1/alerts")->body)["data"]["alerts"];
  EXPECT_FALSE(named(all, "Watchdog").empty()) << all.dump();
  const auto alerts = named(all, "GpuLost");
  ASSERT_EQ(alerts.size(), 1u) << all.dump();
  const auto& a = alerts[0];
  EXPECT_EQ(a["state"], "firing");
  EXPECT_EQ(a["labels"]["gpu"], "3");
  EXPECT_EQ(a["labels"]["severity"], "page");
  EXPECT_EQ(a["labels"]["service"], "training");
  EXPECT_EQ(a["labels"]["hostname"], "gpu-node-023");
  EXPECT_NE(a["annotations"]["runbook_url"].get<std::string>().find("/runbooks/GpuLost"), std::string::npos);

  EXPECT_TRUE(wait_for("/metrics", [](const std::string& b) {
    return b.find("ALERTS{alertname=\"GpuLost\"") != std::string::npos &&
           b.find("alertstate=\"firing\"} 1") != std::string::npos;
  }));

  // In Alertmanager, with the fingerprint the agent computed.
  nlohmann::json in_am;
  for (int i = 0; i < 200 && named(in_am, "GpuLost").empty(); ++i) {
    in_am = am_->alerts();
    if (!in_am.is_array()) in_am = nlohmann::json::array();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  in_am = named(in_am, "GpuLost");
  ASSERT_EQ(in_am.size(), 1u) << in_am.dump();
  EXPECT_EQ(in_am[0]["fingerprint"], a["fingerprint"]);
  EXPECT_TRUE(hook_.wait_for([](const auto& b) { return !b.empty(); }));

  const std::string url = "http://127.0.0.1:" + std::to_string(port_);
  auto table = test::run_process({kBinary, "alerts", "--url", url});
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("GpuLost"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("GPU 3 fell off the bus"), std::string::npos) << table.out;
  auto json = test::run_process({kBinary, "alerts", "--json", "--url", url});
  EXPECT_EQ(named(nlohmann::json::parse(json.out)["data"]["alerts"], "GpuLost").size(), 1u);

  // With an Alertmanager configured, silences belong there: the token is checked first, then refused.
  httplib::Client client("127.0.0.1", port_);
  const std::string silence = R"({"matchers":[{"name":"gpu","value":"3"}],"startsAt":"2026-01-01T00:00:00Z",
                                  "endsAt":"2100-01-01T00:00:00Z"})";
  EXPECT_EQ(client.Post("/api/v1/silences", silence, "application/json")->status, 401);
  const auto refused =
      client.Post("/api/v1/silences", {{"Authorization", "Bearer t0ken"}}, silence, "application/json");
  EXPECT_EQ(refused->status, 409);
  EXPECT_NE(refused->body.find("amtool"), std::string::npos);
}

// Standalone routing: a maintenance window from the config mutes the lost GPU's alert (still listed), and a
// broken window file costs its windows only (and an unreadable token file the API's mutations): the agent
// logs the file and the reason, runs, and counts it.
TEST(AgentStandalone, MaintenanceWindowFromConfigMutesTheAlert) {
  const auto dir = fs::temp_directory_path() / ("gpuwatch-windows-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "windows.json") << R"([{"matchers": [{"name": "gpu", "value": "3"}],
      "startsAt": "2000-01-01T00:00:00Z", "endsAt": "2100-01-01T00:00:00Z", "comment": "reseating GPU 3"}])";
  std::ofstream(dir / "broken.json") << R"([{"matchers": [], "startsAt": "2000-01-01T00:00:00Z"}])";
  const std::map<std::string, std::string> env{
      {"GPUWATCH_SIM_EPOCH", std::to_string(std::time(nullptr) - 3600)}};

  {
    test::BackgroundProcess broken(
        {kBinary, "agent", "--listen", "127.0.0.1:0", "--sim-scenario", kIncidents, "--silences-file",
         (dir / "broken.json").string(), "--api-token-file", (dir / "no-token").string()},
        env);
    const int port = agent_port(broken);
    ASSERT_NE(port, 0) << broken.stderr_text();
    EXPECT_NE(broken.stderr_text().find("broken.json: silence 0: matchers"), std::string::npos)
        << broken.stderr_text();
    httplib::Client client("127.0.0.1", port);
    const auto metrics = client.Get("/metrics");
    ASSERT_TRUE(metrics);
    EXPECT_NE(metrics->body.find("gpuwatch_silences_load_errors{source=\"config\"} 1"), std::string::npos);
    EXPECT_EQ(client.Get("/api/v1/silences")->body.find("config"), std::string::npos);
    // Nor does an unreadable token file stop it: the silence API is read only and says why.
    const auto refused =
        client.Post("/api/v1/silences", {{"Authorization", "Bearer x"}}, "{}", "application/json");
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 403);
    EXPECT_NE(refused->body.find("no-token: cannot read: No such file or directory"), std::string::npos)
        << refused->body;
  }

  test::BackgroundProcess agent(
      {kBinary, "agent", "--listen", "127.0.0.1:0", "--sim-scenario", kIncidents, "--silences-file",
       (dir / "windows.json").string(), "--data-dir", (dir / "data").string()},
      env);
  const int port = agent_port(agent);
  ASSERT_NE(port, 0) << agent.stderr_text();
  httplib::Client client("127.0.0.1", port);
  const auto [all, alerts] = wait_for_alerts(port, "GpuLost");
  ASSERT_EQ(alerts.size(), 1u) << all.dump();
  EXPECT_EQ(alerts[0]["muted"], true);
  // The window matches gpu="3" only: GPU 2's ECC alert is not muted.
  const auto ecc = named(all, "GpuEccUncorrectable");
  ASSERT_EQ(ecc.size(), 1u) << all.dump();
  EXPECT_EQ(ecc[0]["muted"], false);
  const auto silences = nlohmann::json::parse(client.Get("/api/v1/silences")->body)["data"];
  ASSERT_EQ(silences.size(), 1u);
  EXPECT_EQ(silences[0]["source"], "config");
  EXPECT_EQ(silences[0]["status"]["state"], "active");
  // Mutations are off without a token file, and say so.
  const auto refused = client.Delete("/api/v1/silence/" + silences[0]["id"].get<std::string>());
  EXPECT_EQ(refused->status, 403);
  EXPECT_NE(refused->body.find("no API token is configured"), std::string::npos);
  fs::remove_all(dir);
}

// Shared PCIe contention needs the topology from sysfs: `gpuwatch sim sysfs-tree` lays out the scenario's
// switches, and the agent pointed at it with --sysfs-root raises GpuPcieContention for switch A's uplink.
// The scenario's script plays 30x faster than the clock, from just before the job arriving on GPU1 at 300 s;
// the alert's `for` counts wall time, so it is cut to 10 s here.
TEST(AgentPcieContention, TheAgentReadsTheTopologyAndAlerts) {
  const auto dir = fs::temp_directory_path() / ("gpuwatch-pcie-" + std::to_string(::getpid()));
  const std::string scenario = std::string(GPUWATCH_SOURCE_DIR) + "/scenarios/pcie-contention-4xh200.yaml";
  const std::string sys = (dir / "sys").string();
  const auto usage = test::run_process({kBinary, "sim", "sysfs-tree", "--sim-scenario", scenario});
  EXPECT_EQ(usage.exit_code, 1);
  EXPECT_NE(usage.err.find("needs --sim-scenario FILE and --sysfs-root DIR (not /sys)"), std::string::npos)
      << usage.err;
  const auto tree =
      test::run_process({kBinary, "sim", "sysfs-tree", "--sim-scenario", scenario, "--sysfs-root", sys});
  ASSERT_EQ(tree.exit_code, 0) << tree.err;
  EXPECT_EQ(tree.out, sys + "\n");
  ASSERT_TRUE(fs::exists(fs::path(sys) / "bus/pci/devices/0000:01:00.0/current_link_speed"));

  const std::map<std::string, std::string> env{
      {"GPUWATCH_SIM_TIME_SCALE", "30"}, {"GPUWATCH_SIM_EPOCH", std::to_string(std::time(nullptr) - 8)}};
  test::BackgroundProcess agent({kBinary, "agent", "--listen", "127.0.0.1:0", "--sim-scenario", scenario,
                                 "--sysfs-root", sys, "--kmsg", "", "--interval", "2s", "--data-dir",
                                 (dir / "data").string(), "--detect.pcie-contention.for-duration", "10s"},
                                env);
  const int port = agent_port(agent);
  ASSERT_NE(port, 0) << agent.stderr_text();
  const auto [all, alerts] = wait_for_alerts(port, "GpuPcieContention", true);
  ASSERT_EQ(alerts.size(), 1u) << all.dump() << agent.stderr_text();
  const auto& a = alerts[0];
  EXPECT_EQ(a["labels"]["pcie_link"], "0000:01:00.0");
  EXPECT_EQ(a["labels"]["direction"], "host_to_device");
  EXPECT_EQ(a["labels"]["severity"], "ticket");
  EXPECT_EQ(a["labels"]["hostname"], "gpu-node-032");
  EXPECT_NE(a["annotations"]["summary"].get<std::string>().find("GPUs 0, 1 share the full PCIe uplink"),
            std::string::npos)
      << a.dump();
  EXPECT_NE(a["annotations"]["runbook_url"].get<std::string>().find("/runbooks/GpuPcieContention"),
            std::string::npos);
  fs::remove_all(dir);
}

TEST(AlertsCommand, InhibitRulesAreValidAlertmanagerConfig) {
  const auto rules = test::run_process({kBinary, "alerts", "inhibit-rules"});
  ASSERT_EQ(rules.exit_code, 0) << rules.err;
  const auto path = fs::temp_directory_path() / ("gpuwatch-inhibit-" + std::to_string(::getpid()) + ".yml");
  std::ofstream(path) << "route: {receiver: none}\nreceivers: [{name: none}]\n" << rules.out;
  const auto check = test::run_process({AMTOOL_BINARY, "check-config", path.string()});
  fs::remove(path);
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find(" - 2 inhibit rules"), std::string::npos) << check.out;
}

TEST(AlertsCommand, NoAgentIsAClearError) {
  const auto r = test::run_process({kBinary, "alerts", "--url", "http://127.0.0.1:1"});
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_NE(r.err.find("no agent answers at http://127.0.0.1:1"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpuwatch::alerting
