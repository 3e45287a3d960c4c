// A fleet on one machine: three agents on three simulated nodes (two healthy H200 nodes of different
// scenarios, one H100 node with faults), each sending remote write to one Prometheus (which also scrapes
// them, under a job of its own) and one VictoriaMetrics, and its alerts to one Alertmanager. Fleet-wide
// queries (per node, per model, fleet utilization) answer the same on both receivers; Alertmanager holds
// exactly one alert per injected (node, fault), also after the faulty node's agent is killed and started
// again on its data dir.
//
// The agents start in lockstep with their scenarios' epoch 100 s in the past: they replay those 100 scenario
// seconds as fast as the machine allows (the faults begin in them), then follow the clock. The thermal fault
// ends 60 s after the start, in wall time, so the test sees its alert both firing and resolved. The restarted
// agent runs its scenario scaled at 1x from the same epoch: its scenario time goes on where the killed one's
// stopped, as a real node's time goes on while its agent is down.
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <tuple>

#include "alertmanager_process.h"
#include "prometheus_server.h"
#include "receivers.h"
#include "recording_server.h"
#include "run_process.h"
#include "temp_dir.h"

namespace gpuwatch::test {
namespace {

using std::chrono::seconds;

const std::string kBinary = std::string(GPUWATCH_BINARY_DIR) + "/gpuwatch";
constexpr std::time_t kReplayed = 100;       // scenario seconds behind the clock at the start
constexpr std::time_t kThermalEndsAt = 160;  // the faulty scenario's thermal fault: 60 s to 160 s

std::string source_file(const std::string& path) {
  return std::string(GPUWATCH_SOURCE_DIR) + "/" + path;
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

// An alert as the fleet's operator tells one from another: which node, which alert, which GPU.
using AlertKey = std::tuple<std::string, std::string, std::string>;  // hostname, alertname, gpu

std::string describe(const std::map<AlertKey, int>& alerts) {
  std::string out;
  for (const auto& [key, n] : alerts)
    out +=
        std::get<0>(key) + "/" + std::get<1>(key) + "/" + std::get<2>(key) + " x" + std::to_string(n) + "; ";
  return out;
}

struct HeldAlerts {
  std::map<AlertKey, int> count;              // how many alerts Alertmanager holds for each key
  std::map<AlertKey, std::string> starts_at;  // as Alertmanager keeps it
};

HeldAlerts held(const alerting::testing::AlertmanagerProcess& am) {
  HeldAlerts out;
  const nlohmann::json alerts = am.alerts();
  if (!alerts.is_array()) return out;
  for (const auto& a : alerts) {
    const auto& l = a.at("labels");
    const AlertKey key{l.value("hostname", ""), l.value("alertname", ""), l.value("gpu", "")};
    ++out.count[key];
    out.starts_at[key] = a.value("startsAt", "");
  }
  return out;
}

std::map<AlertKey, int> once(const std::set<AlertKey>& keys) {
  std::map<AlertKey, int> out;
  for (const auto& k : keys) out[k] = 1;
  return out;
}

// Polls Alertmanager (wall time: the agents deliver on their own threads) until it holds exactly `expected`,
// one alert each, or `limit` passes; what it held last either way.
HeldAlerts wait_for_exactly(const alerting::testing::AlertmanagerProcess& am,
                            const std::set<AlertKey>& expected, std::chrono::steady_clock::time_point limit) {
  HeldAlerts last = held(am);
  while (last.count != once(expected) && std::chrono::steady_clock::now() < limit) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    last = held(am);
  }
  return last;
}

// gpuwatch_alerts_sent_total of an agent's /metrics; -1 when it does not answer.
double alerts_sent(httplib::Client& agent) {
  const auto r = agent.Get("/metrics");
  if (!r || r->status != 200) return -1;
  const std::string prefix = "gpuwatch_alerts_sent_total{receiver=\"alertmanager\"} ";
  const auto at = r->body.find(prefix);
  return at == std::string::npos ? -1 : std::stod(r->body.substr(at + prefix.size()));
}

class Node {
 public:
  Node(std::string scenario, std::string data_dir)
      : scenario_(std::move(scenario)), data_dir_(std::move(data_dir)) {}
  int port() const { return port_; }
  void start(const std::string& mode, std::time_t epoch, const std::vector<std::string>& outputs) {
    std::vector<std::string> argv{kBinary,
                                  "agent",
                                  "--listen",
                                  "127.0.0.1:" + std::to_string(port_),
                                  "--sim-scenario",
                                  scenario_,
                                  "--data-dir",
                                  data_dir_,
                                  "--kmsg",
                                  "",
                                  "--interval",
                                  "1s",
                                  "--alert-resend-interval",
                                  "5s"};
    argv.insert(argv.end(), outputs.begin(), outputs.end());
    process_ = std::make_unique<BackgroundProcess>(
        argv, std::map<std::string, std::string>{{"GPUWATCH_SIM_MODE", mode},
                                                 {"GPUWATCH_SIM_EPOCH", std::to_string(epoch)}});
  }
  void kill() {
    process_->signal(SIGKILL);
    process_->wait_exit(std::chrono::seconds(10));
  }
  bool listening() { return wait_for_listening(*process_, std::chrono::seconds(30)).port == port_; }
  std::string log() const { return process_->stderr_text(); }

 private:
  std::string scenario_, data_dir_;
  int port_ = free_port();  // fixed: Prometheus scrapes it, and the restarted agent listens there again
  std::unique_ptr<BackgroundProcess> process_;
};

// Fleet-wide queries answer the same on Prometheus and VictoriaMetrics at `at`.
void expect_same_fleet_answers(int prometheus_port, int vm_port, double at) {
  const std::vector<std::string> fleet_queries{
      "count by (instance) (gpu_up{job=\"gpuwatch\"})",
      "sum by (instance) (gpu_memory_used_bytes{job=\"gpuwatch\"})",
      "count by (name) (gpu_info{job=\"gpuwatch\"})",
      "avg(gpu_utilization_ratio{job=\"gpuwatch\"})",
      "max by (instance) (gpu_temperature_celsius{job=\"gpuwatch\"})",
  };
  for (const auto& q : fleet_queries) {
    const auto prom = instant(prometheus_port, q, at);
    const auto vic = instant(vm_port, q, at);
    EXPECT_FALSE(prom.empty()) << q;
    ASSERT_EQ(prom.size(), vic.size()) << q;
    for (const auto& [series, value] : prom) {
      const auto it = vic.find(series);
      ASSERT_NE(it, vic.end()) << q << ": victoria-metrics lacks " << series;
      EXPECT_LE(std::abs(it->second - value), 1e-9 * std::max(1.0, std::abs(value))) << q << " " << series;
    }
  }
  EXPECT_EQ(instant(prometheus_port, "count by (instance) (gpu_up{job=\"gpuwatch\"})", at).size(), 3u);
  EXPECT_EQ(instant(prometheus_port, "count by (name) (gpu_info{job=\"gpuwatch\"})", at).size(), 2u)
      << "H200 and H100 nodes";
}

TEST(Fleet, ThreeNodesAnswerTheSameOnBothReceiversAndAlertmanagerHoldsOneAlertPerFaultAcrossARestart) {
  store::test::TempDir dir;
  auto victoria = make_victoria_metrics_receiver();
  victoria->start();
  const int vm_port = victoria->port();
  alerting::testing::RecordingServer webhook;
  std::filesystem::create_directories(dir.path() + "/alertmanager");
  alerting::testing::AlertmanagerProcess am(dir.path() + "/alertmanager", webhook.url() + "/hook");
  ASSERT_TRUE(am.start());

  std::vector<Node> nodes;
  nodes.emplace_back(source_file("scenarios/healthy-8xh200.yaml"), dir.path() + "/agent0");
  nodes.emplace_back(source_file("tests/query/steady-4xh200.yaml"), dir.path() + "/agent1");
  nodes.emplace_back(source_file("tests/remote_write/fleet-faults-4xh100.yaml"), dir.path() + "/agent2");
  Node& faulty = nodes.back();
  std::string targets;
  for (const auto& n : nodes)
    targets += (targets.empty() ? "'" : ", '") + std::string("127.0.0.1:") + std::to_string(n.port()) + "'";
  // Prometheus scrapes the agents as job "scraped", apart from the series they write (job "gpuwatch").
  auto prometheus = make_scraping_prometheus_receiver(
      "  - job_name: scraped\n    static_configs:\n      - targets: [" + targets + "]\n");
  prometheus->start();
  const std::vector<std::string> outputs{"--remote-write-url",  prometheus->write_url(), "--remote-write-url",
                                         victoria->write_url(), "--alertmanager-url",    am.url()};

  const std::time_t epoch = std::time(nullptr) - kReplayed;
  const auto thermal_ends = std::chrono::steady_clock::now() + seconds(kThermalEndsAt - kReplayed);
  for (auto& n : nodes) n.start("lockstep", epoch, outputs);
  for (auto& n : nodes) ASSERT_TRUE(n.listening()) << n.log();

  // Every injected fault of the faulty node, and the Watchdog of each node (it always fires: it proves the
  // path from each agent to Alertmanager works); nothing else, and nothing twice.
  std::set<AlertKey> expected{{"gpu-node-017", "Watchdog", ""},
                              {"steady-node", "Watchdog", ""},
                              {"faulty-node", "Watchdog", ""},
                              {"faulty-node", "GpuPowerBrake", "1"},
                              {"faulty-node", "GpuThermalSlowdown", "3"},
                              {"faulty-node", "GpuThermalSlowdown", "0"}};
  const HeldAlerts firing = wait_for_exactly(am, expected, thermal_ends - seconds(5));
  ASSERT_EQ(describe(firing.count), describe(once(expected)))
      << "while every fault is on (or the machine was too slow to get here before the thermal fault ended)";

  // The remote-write half, now that every agent has replayed its past and follows the clock: once both
  // receivers hold samples of every node newer than `at` (each queue sends in order), both hold all up to it.
  const double at =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count() - 2;
  const std::string newer =
      "count by (instance) (timestamp(gpu_up{job=\"gpuwatch\"}) > " + std::to_string(at) + ")";
  for (int i = 0; i < 150; ++i) {
    httplib::Client("127.0.0.1", vm_port).Get("/internal/force_flush");
    const double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    if (instant(prometheus->port(), newer, now).size() == 3 && instant(vm_port, newer, now).size() == 3)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the receivers' pace, in wall time
  }
  expect_same_fleet_answers(prometheus->port(), vm_port, at);
  // Scraped too, beside what the agents write: every agent is a healthy target (Prometheus's discovery
  // hands its targets to the scrapers a few seconds after the start).
  nlohmann::json active;
  for (int i = 0; i < 150; ++i) {
    const auto reply = httplib::Client("127.0.0.1", prometheus->port()).Get("/api/v1/targets");
    ASSERT_TRUE(reply);
    active = nlohmann::json::parse(reply->body).at("data").at("activeTargets");
    const bool all_up =
        std::all_of(active.begin(), active.end(), [](const auto& t) { return t.at("health") == "up"; });
    if (active.size() == 3 && all_up) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // Prometheus's pace, in wall time
  }
  ASSERT_EQ(active.size(), 3u);
  for (const auto& t : active) EXPECT_EQ(t.at("health"), "up") << t.dump();

  // GPU 0's thermal fault ends: its alert is resolved, the rest hold.
  expected.erase({"faulty-node", "GpuThermalSlowdown", "0"});
  const HeldAlerts resolved = wait_for_exactly(am, expected, thermal_ends + seconds(30));
  ASSERT_EQ(describe(resolved.count), describe(once(expected))) << "after the thermal fault ended";
  auto lasting = firing.starts_at;
  lasting.erase({"faulty-node", "GpuThermalSlowdown", "0"});
  EXPECT_EQ(resolved.starts_at, lasting) << "the lasting alerts are the ones that fired first";

  // The faulty node's agent dies and comes back on its data dir (and port). The restart's first tick raises
  // its lasting alerts afresh; Alertmanager must hold each once still, with the start it had (a resolution in
  // between would have begun a new one), and the resolved one must not come back.
  const std::size_t notified_before_restart = webhook.bodies().size();
  faulty.kill();
  faulty.start("scaled", epoch, outputs);
  ASSERT_TRUE(faulty.listening()) << faulty.log();
  httplib::Client agent("127.0.0.1", faulty.port());
  const auto deadline = std::chrono::steady_clock::now() + seconds(30);
  while (std::chrono::steady_clock::now() < deadline && alerts_sent(agent) <= 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_GT(alerts_sent(agent), 0) << "the restarted agent delivered nothing: " << faulty.log();
  // Past the validity of what the killed agent sent (4 resend intervals, 20 s): an alert the restarted one
  // does not raise again has ended in Alertmanager by then, and a duplicate or a re-fired one has arrived.
  std::this_thread::sleep_for(seconds(25));
  const HeldAlerts after = held(am);
  EXPECT_EQ(describe(after.count), describe(once(expected))) << "after the restart";
  EXPECT_EQ(after.starts_at, resolved.starts_at) << "no alert ended and began again across the restart";
  for (std::size_t i = notified_before_restart; i < webhook.bodies().size(); ++i) {
    for (const auto& a : webhook.bodies()[i].value("alerts", nlohmann::json::array()))
      EXPECT_FALSE(a["labels"].value("alertname", "") == "GpuThermalSlowdown" &&
                   a["labels"].value("gpu", "") == "0" && a.value("status", "") == "firing")
          << "the resolved alert fired again: " << a.dump();
  }
  const auto agent_alerts = agent.Get("/api/v1/alerts");
  ASSERT_TRUE(agent_alerts);
  EXPECT_NE(agent_alerts->body.find("GpuPowerBrake"), std::string::npos)
      << "the restarted agent sees the brake itself";
}

}  // namespace
}  // namespace gpuwatch::test
