// The shipped week on a shared 8-GPU node (scenarios/shared-node-week.yaml), end to end: the agent plays it
// in lockstep on the simulator (it started a week before now and catches up with the clock), names the pods
// from a fake kubelet that serves the scenario's pods over the real PodResources protocol and the jobs from
// the scenario's cgroups, and keeps its accounting in its history. Then `gpuwatch report --since 7d` must
// give the scenario's GPU-hours per state and cost per team exactly (to the cent), beside OpenCost's figure,
// and every per-process series and alert of the week must name its pod or job and its user.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "core/wall_clock.h"
#include "fake_kubelet.h"
#include "prometheus_server.h"
#include "run_process.h"
#include "scenario_pods.h"
#include "sim_support.h"

namespace gpuwatch {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

const std::string kScenario = std::string(GPUWATCH_SOURCE_DIR) + "/scenarios/shared-node-week.yaml";
const std::string kBinary = std::string(GPUWATCH_BINARY_DIR) + "/gpuwatch";

json get_json(httplib::Client& client, const std::string& path) {
  const auto r = client.Get(path);
  if (!r || r->status != 200) return nullptr;
  return json::parse(r->body, nullptr, false);
}

TEST(SharedNodeWeek, TheReportMatchesTheScenarioAndEverySeriesNamesItsWorkload) {
  test::TempDir dir;
  std::filesystem::create_directories(dir.path() + "/proc");
  std::filesystem::create_directories(dir.path() + "/pod-resources");
  test::FakeKubelet kubelet(dir.path() + "/pod-resources/kubelet.sock");
  const auto allocations = test::scenario_pods(
      std::string(GPUWATCH_BINARY_DIR) + "/sim-lib/libnvidia-ml.so.1", kScenario, dir.path() + "/proc");
  ASSERT_EQ(allocations.size(), 6u);
  kubelet.set_allocations(allocations);
  kubelet.start();

  const int port = test::free_port();
  const std::string config = dir.path() + "/gpuwatch.yaml";
  std::ofstream(config) << "listen: 127.0.0.1:" << port << "\n"
                        << "interval: 60s\n"
                        << "data_dir: " << dir.path() << "/data\n"
                        << "sim_scenario: " << kScenario << "\n"
                        << "nvml_library: " << GPUWATCH_BINARY_DIR << "/sim-lib/libnvidia-ml.so.1\n"
                        << "proc_root: " << dir.path() << "/proc\n"
                        << "kmsg: \"\"\n"
                        << "pod_resources_socket: " << dir.path() << "/pod-resources/kubelet.sock\n"
                        << "gpu_hour_price: H200=4\n"
                        << "teams: research=namespace:research;vision=namespace:vision;physics=user:carol;"
                           "ops=namespace:ops\n";
  const std::int64_t before = wall_unix_ms();
  test::BackgroundProcess agent({kBinary, "agent", "--config", config});

  // The week is caught up when a snapshot reaches the time the agent started (the scenario's end).
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(30);
  std::int64_t end_ms = 0;
  const auto deadline = std::chrono::steady_clock::now() + 240s;
  while (std::chrono::steady_clock::now() < deadline) {
    const json gpus = get_json(client, "/api/v1/gpus");
    if (gpus.is_object() && gpus.value("timestamp_ms", std::int64_t{0}) >= before) {
      end_ms = gpus["timestamp_ms"].get<std::int64_t>();
      break;
    }
    std::this_thread::sleep_for(500ms);
  }
  ASSERT_GT(end_ms, 0) << "the agent did not catch up with the week";

  // Every per-process series of the week names its pod (namespace, container) or job, and its user.
  const std::string week =
      "start=" + std::to_string((end_ms - 7 * 86'400'000LL) / 1000) + "&end=" + std::to_string(end_ms / 1000);
  const json series = get_json(client, "/api/v1/series?match[]=gpu_process_memory_used_bytes&" + week);
  ASSERT_TRUE(series.is_object());
  std::set<std::string> pids;
  for (const auto& s : series["data"]) {
    pids.insert(s["pid"].get<std::string>());
    EXPECT_TRUE(s.contains("user")) << s.dump();
    EXPECT_TRUE(s.contains("slurm_job") ||
                (s.contains("pod") && s.contains("namespace") && s.contains("container")))
        << s.dump();
  }
  EXPECT_EQ(pids, (std::set<std::string>{"61000", "61001", "62000", "63000", "64000", "65000"}));
  // The idle-waste alerts of the week name the pod and its user.
  const json alerts = get_json(client, "/api/v1/alerts");
  ASSERT_TRUE(alerts.is_object());
  std::set<std::string> idle_pods, names;
  for (const auto& a : alerts["data"]["alerts"]) {
    names.insert(a["labels"]["alertname"].get<std::string>());
    if (!a["labels"].contains("uuid")) continue;  // about the node or the pipeline (Watchdog), no GPU's
    // Every alert about a GPU names whose work was on it.
    EXPECT_TRUE(a["labels"].contains("user")) << a.dump();
    EXPECT_TRUE(a["labels"].contains("pod") || a["labels"].contains("slurm_job")) << a.dump();
    if (a["labels"]["alertname"] != "GpuIdleWaste") continue;
    EXPECT_EQ(a["labels"]["severity"], "ticket");
    // And what the idle GPU costs, at the configured price.
    EXPECT_NE(a["annotations"].value("description", "").find("costs 96.00 a day at 4.00 per GPU-hour"),
              std::string::npos)
        << a.dump();
    idle_pods.insert(a["labels"].value("namespace", "") + "/" + a["labels"].value("pod", "") + " " +
                     a["labels"].value("user", ""));
  }
  EXPECT_TRUE(idle_pods.contains("vision/notebook-bob bob")) << alerts.dump();
  EXPECT_TRUE(idle_pods.contains("research/llm-train-0 alice")) << alerts.dump();
  EXPECT_TRUE(names.contains("GpuLost")) << alerts.dump();  // GPU 7, named by its pod and last user

  // The sinks have stored everything up to the last snapshot before the agent stops (a stop gives a sink
  // still working through a backlog two seconds, then leaves it).
  const auto drained = std::chrono::steady_clock::now() + 60s;
  for (;;) {
    const auto m = client.Get("/metrics");
    const bool idle =
        m && m->status == 200 &&
        m->body.find(R"(gpuwatch_sink_queue_length{sink="accounting"} 0)") != std::string::npos &&
        m->body.find(R"(gpuwatch_sink_queue_length{sink="history"} 0)") != std::string::npos;
    if (idle || std::chrono::steady_clock::now() > drained) break;
    std::this_thread::sleep_for(200ms);
  }
  agent.signal(SIGTERM);
  ASSERT_EQ(agent.wait_exit(30s), 0);

  const auto report = test::run_process({kBinary, "report", "--data-dir", dir.path() + "/data", "--since",
                                         "7d", "--end", std::to_string(end_ms / 1000.0), "--format", "json"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const json r = json::parse(report.out);
  auto cents = [](double v) { return std::llround(v * 100); };
  // GPU-hours by state, as the scenario's table says.
  EXPECT_EQ(r["node"]["hours"]["active"], 640.0);
  EXPECT_EQ(r["node"]["hours"]["idle_held"], 422.0);
  EXPECT_EQ(r["node"]["hours"]["unallocated"], 264.0);
  EXPECT_EQ(r["node"]["hours"]["unavailable"], 18.0);
  for (const auto& g : r["gpus"]) {
    static const std::map<std::string, std::array<double, 4>> kByGpu = {
        {"0", {120, 48, 0, 0}}, {"1", {120, 48, 0, 0}}, {"2", {10, 158, 0, 0}}, {"3", {168, 0, 0, 0}},
        {"4", {0, 168, 0, 0}},  {"5", {72, 0, 96, 0}},  {"6", {0, 0, 168, 0}},  {"7", {150, 0, 0, 18}}};
    const auto& want = kByGpu.at(g["gpu"].get<std::string>());
    EXPECT_EQ(g["states"]["hours"]["active"], want[0]) << g.dump();
    EXPECT_EQ(g["states"]["hours"]["idle_held"], want[1]) << g.dump();
    EXPECT_EQ(g["states"]["hours"]["unallocated"], want[2]) << g.dump();
    EXPECT_EQ(g["states"]["hours"]["unavailable"], want[3]) << g.dump();
  }
  // Cost per team, to the cent.
  std::map<std::string, std::pair<long long, long long>> teams;
  for (const auto& t : r["teams"])
    teams[t["team"]] = {cents(t["active_cost"].get<double>()), cents(t["idle_held_cost"].get<double>())};
  EXPECT_EQ(teams, (std::map<std::string, std::pair<long long, long long>>{{"research", {96000, 105600}},
                                                                           {"vision", {71200, 63200}},
                                                                           {"physics", {28800, 0}},
                                                                           {"ops", {60000, 0}}}));
  // OpenCost's view beside it: the idle-held hours count as allocated.
  EXPECT_EQ(r["opencost"]["allocated_hours"], 1062.0);
  EXPECT_EQ(cents(r["opencost"]["allocated_cost"].get<double>()), 424800);
  EXPECT_EQ(r["opencost"]["idle_hours"], 282.0);
  EXPECT_EQ(cents(r["opencost"]["idle_cost"].get<double>()), 112800);
  // The most idle workload first: the allocated GPU nothing ran on.
  ASSERT_FALSE(r["workloads"].empty());
  EXPECT_EQ(r["workloads"][0]["name"], "research/eval-idle/eval");

  // The Markdown a person reads says the same. (The same --end: "now" is later by however long the checks
  // above took, and a window that starts after the week's first minute misses it.)
  const auto md = test::run_process({kBinary, "report", "--data-dir", dir.path() + "/data", "--since", "7d",
                                     "--end", std::to_string(end_ms / 1000.0)});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("| idle_held | 422.00 |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| research | 240.00 | 264.00 | 960.00 | 1056.00 | 2016.00 |"), std::string::npos)
      << md.out;
  EXPECT_NE(md.out.find("| allocated | 1062.00 | 4248.00 |"), std::string::npos) << md.out;
}

}  // namespace
}  // namespace gpuwatch
