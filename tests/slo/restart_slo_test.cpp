// Warm start through the binary: two agents on the simulator (scaled, one shared epoch) scrape the same
// service, whose counters are a function of the clock (no requests until both agents scrape it, then half of
// its requests fail for 4 s, none after). One runs throughout; the other is stopped after the failures and
// started again on the same data dir. Its SLO windows come back from the history: its burn rates match the
// other agent's, where an agent that counted only from its restart would see no failure at all.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "../cli/run_process.h"
#include "agent_json.h"
#include "sim_support.h"

namespace gpuwatch {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

const std::string kBinary = std::string(GPUWATCH_BINARY_DIR) + "/gpuwatch";
constexpr double kRequestsPerSecond = 200;
constexpr double kFailingSeconds = 4;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The agent's SLO, or null before its first evaluation.
json slo_of(int port) {
  const json slos = test::get_json(port, "/api/v1/slos");
  if (!slos.is_object() || slos["data"].empty()) return json();
  return slos["data"][0];
}

class Agent {
 public:
  Agent(const std::string& config, const std::string& data_dir, const std::string& epoch)
      : process_({kBinary, "agent", "--config", config, "--listen", "127.0.0.1:0", "--data-dir", data_dir},
                 {{"GPUWATCH_SIM_EPOCH", epoch}}) {
    port_ = test::wait_for_listening(process_, 20s).port;
  }
  int port() const { return port_; }
  test::BackgroundProcess& process() { return process_; }

 private:
  test::BackgroundProcess process_;
  int port_ = 0;
};

TEST(SloRestart, ARestartedAgentBurnsAsOneThatNeverStopped) {
  // The service's traffic starts when both agents scrape it (steady-clock nanoseconds; 0 before).
  std::atomic<std::int64_t> origin_ns{0};
  const auto seconds = [&] {
    const std::int64_t origin = origin_ns.load();
    if (origin == 0) return 0.0;
    return static_cast<double>(now_ns() - origin) / 1e9;
  };
  httplib::Server service;
  service.Get("/metrics", [&](const httplib::Request&, httplib::Response& res) {
    const double t = seconds();
    const double failed = kRequestsPerSecond / 2 * std::min(t, kFailingSeconds);
    const double ok = kRequestsPerSecond * t - failed;
    res.set_content("vllm:request_success_total{model_name=\"llama\"} " + std::to_string(ok) +
                        "\nvllm:request_failure_total{model_name=\"llama\"} " + std::to_string(failed) + "\n",
                    "text/plain; version=0.0.4");
  });
  const int service_port = service.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { service.listen_after_bind(); });

  test::TempDir dir;
  const std::string spec = dir.path() + "/llama.yaml", config = dir.path() + "/gpuwatch.yaml";
  std::ofstream(spec) << R"(version: "prometheus/v1"
service: "llama"
slos:
  - name: "availability"
    objective: 99
    sli:
      events:
        error_query: sum(rate(vllm:request_failure_total{model_name="llama"}[{{.window}}]))
        total_query: sum(rate(vllm:request_success_total{model_name="llama"}[{{.window}}])) + sum(rate(vllm:request_failure_total{model_name="llama"}[{{.window}}]))
)";
  std::ofstream(config) << "sim_scenario: " << GPUWATCH_SOURCE_DIR << "/scenarios/healthy-8xh200.yaml\n"
                        << "nvml_library: " << GPUWATCH_BINARY_DIR << "/sim-lib/libnvidia-ml.so.1\n"
                        << "kmsg: \"\"\ninterval: 100ms\nstore_sync_interval: 100ms\nslo_files: " << spec
                        << "\nscrape:\n  targets:\n    - {job: vllm, url: http://127.0.0.1:" << service_port
                        << "/metrics, interval: 200ms, timeout: 150ms}\n";
  const std::string epoch = std::to_string(std::time(nullptr));

  Agent never_stopped(config, dir.path() + "/a", epoch);
  ASSERT_NE(never_stopped.port(), 0) << never_stopped.process().stderr_text();
  {
    Agent first_run(config, dir.path() + "/b", epoch);
    ASSERT_NE(first_run.port(), 0) << first_run.process().stderr_text();
    for (int i = 0; i < 100 && (slo_of(never_stopped.port()).is_null() || slo_of(first_run.port()).is_null());
         ++i)
      std::this_thread::sleep_for(100ms);
    std::this_thread::sleep_for(500ms);  // both have scraped the idle service: their counts start at 0
    origin_ns = now_ns();
    while (seconds() < kFailingSeconds + 1) std::this_thread::sleep_for(100ms);
    const json before = slo_of(first_run.port());
    ASSERT_FALSE(before.is_null()) << first_run.process().stderr_text();
    EXPECT_GT(before["burnRate"]["5m"].get<double>(), 10);  // half of the requests failed: 50x
    first_run.process().signal(SIGTERM);
    ASSERT_EQ(first_run.process().wait_exit(20s), 0) << first_run.process().stderr_text();
  }
  // Stopped for a while with no failures: then an agent that forgot its past would burn nothing.
  std::this_thread::sleep_for(1s);
  Agent restarted(config, dir.path() + "/b", epoch);
  ASSERT_NE(restarted.port(), 0) << restarted.process().stderr_text();
  std::this_thread::sleep_for(3s);
  EXPECT_TRUE(test::wait_for_log(restarted.process(), "warm start from the history", 1s))
      << restarted.process().stderr_text();

  // Both at about the same moment: every window (5m and longer) still holds the whole run.
  const json a = slo_of(never_stopped.port()), b = slo_of(restarted.port());
  ASSERT_FALSE(a.is_null()) << never_stopped.process().stderr_text();
  ASSERT_FALSE(b.is_null()) << restarted.process().stderr_text();
  const double expected = 100 * kFailingSeconds / (kRequestsPerSecond * seconds()) / 0.01;
  for (const auto& [window, burn] : a["burnRate"].items()) {
    const double x = burn.get<double>(), y = b["burnRate"][window].get<double>();
    EXPECT_NEAR(y, x, 0.1 * x) << window;
    EXPECT_NEAR(x, expected, 0.2 * expected) << window;
  }
  EXPECT_NEAR(b["budgetRemaining"].get<double>(), a["budgetRemaining"].get<double>(),
              0.1 * std::abs(a["budgetRemaining"].get<double>()));
  EXPECT_EQ(b["alertState"], a["alertState"]);

  service.stop();
  serving.join();
}

}  // namespace
}  // namespace gpuwatch
