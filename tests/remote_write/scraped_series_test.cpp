// Remote write of what the history holds beyond the GPU series: the series the agent scrapes from a service
// (src/scrape) with the staleness marker of one that goes away, and per-process series under the history's
// cap (the rest summed into pid="other"). Each time a real receiver holds what the history holds, sample by
// sample.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <bit>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/stale_marker.h"
#include "lockstep_node.h"
#include "scrape/scraper.h"

namespace gpuwatch::test {
namespace {

// A model server's /metrics on loopback: a counter that grows with each scrape and a gauge the test can
// take away (the service stops exporting it), which the scraper then marks stale.
class Service {
 public:
  Service() {
    server_.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      std::string body = "# TYPE requests_total counter\nrequests_total{code=\"200\"} " +
                         std::to_string(10 * ++scrapes_) + "\n";
      if (!queue_gone_)
        body += "# TYPE queue_depth gauge\nqueue_depth " + std::to_string(scrapes_ % 7) + "\n";
      res.set_content(body, "text/plain; version=0.0.4");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~Service() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/metrics"; }
  void stop_exporting_queue_depth() { queue_gone_ = true; }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<int> scrapes_{0};
  std::atomic<bool> queue_gone_{false};
};

RawSamples without_stale_markers(RawSamples samples) {
  for (auto& [series, points] : samples)
    std::erase_if(points, [](const Point& p) { return is_stale_marker(p.value); });
  std::erase_if(samples, [](const auto& entry) { return entry.second.empty(); });
  return samples;
}

// Series of an instant query's answer.
std::size_t instant_series(Receiver& prometheus, const std::string& query, std::int64_t t_ms) {
  httplib::Client client(prometheus.origin());
  const httplib::Params params{{"query", query},
                               {"time", std::to_string(static_cast<double>(t_ms) / 1000.0)}};
  const auto res = client.Post("/api/v1/query", params);
  if (!res || res->status != 200) throw std::runtime_error(query + ": " + (res ? res->body : "no answer"));
  return nlohmann::json::parse(res->body).at("data").at("result").size();
}

TEST(RemoteWriteScrapes, ScrapedSeriesAndTheStalenessMarkerOfOneThatWentAwayReachTheReceiver) {
  auto prometheus = make_prometheus_receiver();
  prometheus->start();
  Service service;
  ScrapeConfig config;
  ScrapeTargetConfig t;
  t.job = "inference";
  t.url = service.url();
  t.interval = std::chrono::seconds(4);
  t.timeout = std::chrono::seconds(2);
  config.targets = {t};
  auto scraper = std::make_shared<scrape::Scraper>(config, "");
  LockstepNodeOptions options;
  options.scrapes = [scraper](std::int64_t now_ms, const Snapshot& snapshot,
                              std::chrono::steady_clock::time_point wait) {
    return scraper->collect(now_ms, snapshot, wait);
  };
  LockstepNode node({target("prometheus", prometheus->write_url())}, std::move(options));
  node.run_until(60);
  service.stop_exporting_queue_depth();
  node.run_until(120);
  ASSERT_TRUE(node.wait_until_sent(std::chrono::seconds(60)));

  // The history is the oracle: it stores each scrape's samples, the marker with its exact bits.
  const RawSamples history = node.history("requests_total|queue_depth|up|scrape_.+");
  ASSERT_GE(history.size(), 6u) << "the two series and the scrape's own (up, scrape_duration_seconds, ...)";
  std::int64_t marker_ms = 0;
  std::size_t markers = 0;
  for (const auto& [series, points] : history) {
    for (const auto& p : points) {
      if (std::bit_cast<std::uint64_t>(p.value) != kStaleNaNBits) continue;
      ++markers;
      marker_ms = p.t_ms;
      EXPECT_NE(series.find("queue_depth"), std::string::npos) << series;
    }
  }
  ASSERT_EQ(markers, 1u) << "queue_depth went away once";

  // Prometheus answers a range selector with every sample but the staleness markers: all of them, one by
  // one, with the target's own labels (job="inference", the service's instance).
  const RawSamples expected = without_stale_markers(history);
  const std::size_t recorded = count_samples(expected);
  ASSERT_GT(recorded, 80u);  // 30 scrapes x (2 series + 5 of the scrape's own), less what queue_depth lost
  const std::string selector = "{__name__=~\"requests_total|queue_depth|up|scrape_.+\",job=\"inference\"}";
  EXPECT_EQ(
      expect_same_samples(
          expected, samples_when_visible(*prometheus, selector, node.first_ms(), node.last_ms(), recorded),
          "prometheus"),
      recorded);
  // The marker arrived as Prometheus's StaleNaN: from it on the gauge is gone, though its last value lies
  // well inside the five-minute lookback (a plain NaN would be a value there, and no marker would leave the
  // last one).
  EXPECT_EQ(instant_series(*prometheus, "queue_depth", marker_ms - 1), 1u);
  EXPECT_EQ(instant_series(*prometheus, "queue_depth", marker_ms + 1000), 0u);
  EXPECT_EQ(instant_series(*prometheus, "requests_total", marker_ms + 1000), 1u);
}

// Six processes on two GPUs, each with its per-process series (memory, SM and memory utilization), under a
// cap of four series: the four admitted first are sent as they are, the others summed per GPU into
// pid="other", as the history stores them.
constexpr const char* kProcessesScenario = R"(node:
  hostname: rw-busy-node
  seed: 22
devices:
  - model: H200
    workload: {utilization: {value: 70, noise: 10}}
  - model: H200
    workload: {utilization: {value: 40, noise: 10}}
processes:
  - {pid: 1001, gpu: 0, name: trainer, memory: 20GiB, sm_util: {value: 30, noise: 5}}
  - {pid: 1002, gpu: 0, name: trainer, memory: 10GiB, sm_util: {value: 20, noise: 5}}
  - {pid: 1003, gpu: 0, name: notebook, memory: 2GiB, sm_util: {value: 5, noise: 2}}
  - {pid: 2001, gpu: 1, name: server, memory: 30GiB, sm_util: {value: 25, noise: 5}}
  - {pid: 2002, gpu: 1, name: server, memory: 30GiB, sm_util: {value: 10, noise: 5}}
  - {pid: 2003, gpu: 1, name: loader, memory: 1GiB, sm_util: {value: 2, noise: 1}}
)";

TEST(RemoteWriteProcessCap, PerProcessSeriesBeyondTheHistorysCapAreSentSummedAsTheHistoryStoresThem) {
  auto victoria = make_victoria_metrics_receiver();
  victoria->start();
  LockstepNodeOptions options;
  options.scenario = kProcessesScenario;
  options.max_process_series = 4;
  LockstepNode node({target("vm", victoria->write_url())}, std::move(options));
  node.run_until(120);
  ASSERT_TRUE(node.wait_until_sent(std::chrono::seconds(60)));

  const RawSamples history = node.history("gpu_process_.+");
  std::size_t per_process = 0, aggregates = 0;
  for (const auto& [series, points] : history) {
    const bool other = series.find("pid=\"other\"") != std::string::npos;
    (other ? aggregates : per_process) += 1;
  }
  EXPECT_EQ(per_process, 4u) << "the cap";
  EXPECT_GT(aggregates, 0u) << "the rest, summed";
  const std::size_t recorded = count_samples(history);
  ASSERT_GT(recorded, 300u);
  EXPECT_EQ(expect_same_samples(history,
                                samples_when_visible(*victoria, "{__name__=~\"gpu_process_.+\"}",
                                                     node.first_ms(), node.last_ms(), recorded),
                                "victoria-metrics", 1e-9),
            recorded);
  const auto s = node.sink().stats().at(0);
  EXPECT_EQ(s.dropped_rejected + s.dropped_queue_full, 0u);
}

}  // namespace
}  // namespace gpuwatch::test
