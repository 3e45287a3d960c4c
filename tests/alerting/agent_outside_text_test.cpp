// A process whose name is not UTF-8 (any local user can do `printf 'py\xff\xfethon' > /proc/self/comm`):
// the agent, with a webhook receiver, keeps running, delivers the alert naming the process with the bad bytes
// replaced, and keeps serving /api/v1/gpus and a /metrics page that is valid UTF-8. Before, the first such
// alert aborted the agent on the collector thread, again after every restart.
#include <gtest/gtest.h>
#include <httplib.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>

#include "../cli/run_process.h"
#include "core/utf8.h"
#include "recording_server.h"

namespace gpuwatch::alerting {
namespace {

namespace fs = std::filesystem;

const std::string kBinary = std::string(GPUWATCH_BINARY_DIR) + "/gpuwatch";
const std::string kBadName = "py\xFF\xFEthon";
const std::string kRepaired = "py\xEF\xBF\xBD\xEF\xBF\xBDthon";

// One GPU, one process with that name mapping a libcuda of another version than the driver: the
// GpuProcessLibcudaMismatch alert names the process.
std::string scenario() {
  return "node: {hostname: text-node, driver_version: \"550.54.15\", cuda_driver_version: \"12.4\"}\n"
         "devices:\n"
         "  - model: H200\n"
         "processes:\n"
         "  - pid: 4242\n"
         "    name: " +
         kBadName +
         "\n"
         "    cmdline: [" +
         kBadName +
         ", train.py]\n"
         "    memory: 10GiB\n"
         "    libraries: [/usr/lib/x86_64-linux-gnu/libcuda.so.470.57.02]\n";
}

// The port an agent started with --listen 127.0.0.1:0 reports in its log; 0 when it exited or never said.
int agent_port(test::BackgroundProcess& agent) {
  return test::wait_for_listening(agent, std::chrono::seconds(20)).port;
}

bool names_the_process(const nlohmann::json& body) {
  for (const auto& a : body["alerts"]) {
    if (a["labels"]["alertname"] == "GpuProcessLibcudaMismatch") return true;
  }
  return false;
}

TEST(AgentOutsideText, ProcessNameThatIsNotUtf8) {
  const auto dir = fs::temp_directory_path() / ("gpuwatch-outside-text-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string file = (dir / "scenario.yaml").string();
  std::ofstream(file) << scenario();
  const std::string proc = (dir / "proc").string();
  const auto tree =
      test::run_process({kBinary, "sim", "proc-tree", "--sim-scenario", file, "--proc-root", proc});
  ASSERT_EQ(tree.exit_code, 0) << tree.err;
  {
    std::ifstream comm(dir / "proc/4242/comm");
    std::string name;
    std::getline(comm, name);
    ASSERT_EQ(name, kBadName);  // the agent really reads the bad bytes
  }

  testing::RecordingServer hook;
  test::BackgroundProcess agent(
      {kBinary, "agent", "--listen", "127.0.0.1:0", "--sim-scenario", file, "--proc-root", proc, "--kmsg", "",
       "--interval", "500ms", "--alert-webhook-url", hook.url() + "/hook", "--data-dir",
       (dir / "data").string()},
      {{"GPUWATCH_SIM_EPOCH", std::to_string(std::time(nullptr) - 600)}});
  const int port = agent_port(agent);
  ASSERT_NE(port, 0) << agent.stderr_text();

  ASSERT_TRUE(hook.wait_for(
      [](const auto& bodies) {
        for (const auto& b : bodies)
          if (names_the_process(b)) return true;
        return false;
      },
      std::chrono::seconds(40)))
      << agent.stderr_text();
  for (const auto& b : hook.bodies()) {
    for (const auto& a : b["alerts"]) {
      if (a["labels"]["alertname"] != "GpuProcessLibcudaMismatch") continue;
      EXPECT_EQ(a["labels"]["process"], kRepaired) << a.dump();
    }
  }

  std::this_thread::sleep_for(std::chrono::seconds(1));  // a few more ticks with the alert firing
  EXPECT_FALSE(agent.wait_exit(std::chrono::milliseconds(0)).has_value()) << agent.stderr_text();
  httplib::Client client("127.0.0.1", port);
  const auto gpus = client.Get("/api/v1/gpus");
  ASSERT_TRUE(gpus);
  EXPECT_EQ(gpus->status, 200) << gpus->body;
  EXPECT_NE(gpus->body.find(kRepaired), std::string::npos) << gpus->body;
  const auto alerts = client.Get("/api/v1/alerts");
  ASSERT_TRUE(alerts);
  EXPECT_EQ(alerts->status, 200) << alerts->body;
  const auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_TRUE(is_valid_utf8(metrics->body));
  EXPECT_NE(metrics->body.find(kRepaired), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpuwatch::alerting
