// The agent killed with SIGKILL in the middle of a send: the receiver (a real Prometheus, behind a proxy
// that passes the request on and holds back the answer) has the batch, the agent never heard so, and more
// snapshots wait in its disk queue. The restarted agent sends from its queue: the receiver then holds every
// sample of the agent's history, each once.
#include <gtest/gtest.h>
#include <httplib.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "fault_proxy.h"
#include "prometheus_server.h"
#include "receivers.h"
#include "run_process.h"

namespace gpuwatch::test {
namespace {

const std::string kBinary = std::string(GPUWATCH_BINARY_DIR) + "/gpuwatch";
const std::string kScenario = std::string(GPUWATCH_SOURCE_DIR) + "/tests/query/steady-4xh200.yaml";

std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The agent's own history, through its query API: every raw GPU sample up to end_ms.
RawSamples agent_history(int port, std::int64_t start_ms, std::int64_t end_ms) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(60);
  const httplib::Params params{
      {"query", "{__name__=~\"gpu_.+\"}[" + std::to_string(end_ms - start_ms + 1) + "ms]"},
      {"time", std::to_string(static_cast<double>(end_ms) / 1000.0)}};
  const auto res = client.Post("/api/v1/query", params);
  if (!res || res->status != 200)
    throw std::runtime_error("agent query failed: " + (res ? res->body : "no answer"));
  RawSamples out;
  const auto body = nlohmann::json::parse(res->body);  // kept: the loop walks inside it
  for (const auto& series : body.at("data").at("result")) {
    Labels labels;
    for (const auto& [k, v] : series.at("metric").items()) labels.emplace_back(k, v.get<std::string>());
    normalize_labels(labels);
    auto& points = out[labels_to_string(labels)];
    for (const auto& v : series.at("values"))
      points.push_back({std::llround(v.at(0).get<double>() * 1000.0), std::stod(v.at(1).get<std::string>())});
  }
  return out;
}

class Agent {
 public:
  // On one port across restarts: the port is the `instance` label the agent gives its series.
  Agent(int port, const std::string& data_dir, const std::string& url)
      : process_(std::vector<std::string>{kBinary, "agent", "--listen", "127.0.0.1:" + std::to_string(port),
                                          "--sim-scenario", kScenario, "--data-dir", data_dir, "--kmsg", "",
                                          "--interval", "100ms", "--store-sync-interval", "200ms",
                                          "--remote-write-url", url}) {
    port_ = wait_for_log(process_, "serving on", std::chrono::seconds(20)) ? port : 0;
  }
  int port() const { return port_; }
  BackgroundProcess& process() { return process_; }

 private:
  BackgroundProcess process_;
  int port_ = 0;
};

TEST(RemoteWriteKill, AnAgentKilledMidSendSendsItsQueueAfterRestartAndNothingIsLost) {
  auto prometheus = make_prometheus_receiver();
  prometheus->start();
  FaultProxy proxy(prometheus->write_url());
  std::string data_dir = (std::filesystem::temp_directory_path() / "gpuwatch-rwkill-XXXXXX").string();
  ASSERT_NE(::mkdtemp(data_dir.data()), nullptr);
  const std::int64_t started_ms = wall_ms();
  const int port = free_port();

  std::int64_t killed_ms = 0;
  {
    Agent first(port, data_dir, proxy.write_url());
    ASSERT_NE(first.port(), 0) << first.process().stderr_text();
    for (int i = 0; i < 200 && proxy.forwarded() < 20; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_GE(proxy.forwarded(), 20) << first.process().stderr_text();
    proxy.hold_next();
    ASSERT_TRUE(proxy.wait_until_held(std::chrono::seconds(10)));
    // Prometheus has the held batch; the agent waits for the answer while its queue grows.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    first.process().signal(SIGKILL);
    killed_ms = wall_ms();
    ASSERT_EQ(first.process().wait_exit(std::chrono::seconds(10)), -SIGKILL);
  }
  proxy.release();
  const int forwarded_before_restart = proxy.forwarded();

  Agent second(port, data_dir, proxy.write_url());
  ASSERT_NE(second.port(), 0) << second.process().stderr_text();
  std::this_thread::sleep_for(std::chrono::seconds(4));
  const std::int64_t end_ms = wall_ms() - 2000;  // sent long ago at 100 ms a snapshot
  EXPECT_GT(proxy.forwarded(), forwarded_before_restart);

  const RawSamples history = agent_history(second.port(), started_ms - 60'000, end_ms);
  const RawSamples received = prometheus->samples("{__name__=~\"gpu_.+\"}", started_ms - 60'000, end_ms);
  std::size_t recorded = 0, compared = 0, received_only = 0;
  for (const auto& [series, points] : history) {
    recorded += points.size();
    const auto it = received.find(series);
    ASSERT_NE(it, received.end()) << "prometheus lacks " << series;
    std::size_t j = 0;
    for (const Point& p : points) {
      while (j < it->second.size() && it->second[j].t_ms < p.t_ms) {
        // Only what the killed agent had queued but not yet synced into its history (every 200 ms).
        EXPECT_GE(it->second[j].t_ms, killed_ms - 1000) << series << " has a sample the history lacks";
        ++received_only;
        ++j;
      }
      ASSERT_LT(j, it->second.size()) << series << " lacks the sample at " << p.t_ms;
      EXPECT_EQ(it->second[j].t_ms, p.t_ms) << series;
      EXPECT_EQ(it->second[j].value, p.value) << series << " at " << p.t_ms;
      ++compared;
      ++j;
    }
    for (; j < it->second.size(); ++j) {
      EXPECT_GE(it->second[j].t_ms, killed_ms - 1000) << series << " has a sample the history lacks";
      ++received_only;
    }
  }
  EXPECT_EQ(received.size(), history.size());
  EXPECT_GT(recorded, 2000u);  // 4 GPUs, 10 snapshots a second, ~40 series each, for several seconds
  EXPECT_EQ(compared, recorded);
  std::cout << "compared " << compared << " samples one by one; " << received_only
            << " received that the killed agent's history had not synced\n";
  std::error_code ec;
  std::filesystem::remove_all(data_dir, ec);
}

}  // namespace
}  // namespace gpuwatch::test
