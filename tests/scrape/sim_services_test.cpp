// The simulator's model servers scraped through the collector in lockstep: a service's latency follows its
// GPU's thermal slowdown while the same model on a healthy GPU keeps its latency; discovery finds the servers
// through the proc tree and labels their series with their GPUs; a lost GPU refuses connections; a bad deploy
// fails requests on a healthy GPU.
#include <gtest/gtest.h>
#include <httplib.h>

#include <map>
#include <set>

#include "collector/collector.h"
#include "scrape/scraper.h"
#include "sim_serve/sim_services.h"
#include "sim_support.h"

namespace gpuwatch {
namespace {

constexpr const char* kScenario = R"(node: {hostname: svc-node, seed: 5, mode: lockstep}
devices:
  - {model: H200, count: 3}
processes:
  - {pid: 500, gpu: 0, name: python3, memory: 60GiB, sm_util: 60, cgroup: /system.slice/slurmstepd.scope/job_77/step_0}
  - {pid: 501, gpu: 1, name: python3, memory: 60GiB, sm_util: 60}
  - {pid: 502, gpu: 2, name: tritonserver, memory: 30GiB, sm_util: 40}
faults:
  - {type: thermal_throttle, gpu: 0, at: 120s, duration: forever}
  - {type: fall_off_bus, gpu: 2, at: 200s}
services:
  - {model: llama, kind: vllm, pid: 500, port: 1, traffic: 10, latency: 2s}
  - {model: llama, kind: vllm, pid: 501, port: 2, traffic: 10, latency: 2s}
  - {model: resnet, kind: triton, pid: 502, port: 3, traffic: 50, latency: 50ms}
  - {model: mistral, kind: tgi, pid: 501, port: 4, traffic: 20, latency: 1s,
     faults: [{type: bad_deploy, at: 150s, duration: 60s, errors: 0.5}]}
)";

class SimServicesTest : public ::testing::Test {
 protected:
  SimServicesTest() : services_(sim_.library(), true) {
    sim_.write_proc_tree(proc_.path());
    EXPECT_TRUE(services_.write_proc_sockets(proc_.path()));
  }

  // Ticks every 10 s of scenario time up to `until`, scraping through `scraper`; every scrape result.
  std::vector<std::shared_ptr<const ScrapeResult>> run(scrape::Scraper& scraper, double until) {
    CollectorOptions o;
    o.nvml_library = test::sim_library_path();
    o.proc_root = proc_.path();
    o.host.proc_root = proc_.path();  // the workloads (cgroups) discovery labels targets with
    o.deadline = std::chrono::milliseconds(2000);
    o.scrapes = [&scraper](std::int64_t now, const Snapshot& s, std::chrono::steady_clock::time_point wait) {
      return scraper.collect(now, s, wait);
    };
    Collector collector(o);
    std::vector<std::shared_ptr<const ScrapeResult>> out;
    for (double t = 0; t <= until; t += 10) {
      collector.clock().sleep_until_ms(sim_.ms_at(t));
      collector.tick();
      for (const auto& r : collector.latest()->scrapes) out.push_back(r);
    }
    return out;
  }

  ScrapeTargetConfig target(unsigned index) const {
    ScrapeTargetConfig c;
    c.job = "svc";
    c.url = "http://127.0.0.1:" + std::to_string(services_.services()[index].port) + "/metrics";
    c.interval = std::chrono::milliseconds(10'000);
    c.timeout = std::chrono::milliseconds(2'000);
    return c;
  }

  test::SimScenario scenario_{kScenario};
  test::Sim sim_;
  test::TempDir proc_;
  SimServices services_;
};

double sample(const ScrapeResult& r, std::string_view name, std::string_view label = {},
              std::string_view value = {}) {
  for (const auto& s : r.samples) {
    if (label_value(s.labels, "__name__") == name &&
        (label.empty() || label_value(s.labels, label) == value)) {
      return s.value;
    }
  }
  return std::nan("");
}

// Mean end-to-end latency between two scrapes of one target, from vLLM's histogram sum and count.
double mean_latency(const ScrapeResult& a, const ScrapeResult& b) {
  const double sum =
      sample(b, "vllm:e2e_request_latency_seconds_sum") - sample(a, "vllm:e2e_request_latency_seconds_sum");
  const double count = sample(b, "vllm:e2e_request_latency_seconds_count") -
                       sample(a, "vllm:e2e_request_latency_seconds_count");
  return sum / count;
}

TEST_F(SimServicesTest, LatencyFollowsTheGpusThermalSlowdown) {
  ScrapeConfig config;
  config.targets = {target(0), target(1)};
  scrape::Scraper scraper(config, "");
  const auto results = run(scraper, 240);
  std::map<std::string, std::map<std::int64_t, std::shared_ptr<const ScrapeResult>>> by_instance;
  for (const auto& r : results) {
    ASSERT_TRUE(r->up) << r->error;
    by_instance[label_value(r->target, "instance")][r->t_ms] = r;
  }
  ASSERT_EQ(by_instance.size(), 2u);
  const auto& hot = by_instance["127.0.0.1:" + std::to_string(services_.services()[0].port)];
  const auto& cool = by_instance["127.0.0.1:" + std::to_string(services_.services()[1].port)];
  // In lockstep each tick's scrape finishes within the tick: one per 10 s, 25 in all.
  ASSERT_EQ(hot.size(), 25u);
  ASSERT_EQ(cool.size(), 25u);
  const auto at = [&](const auto& m, double s) { return *m.at(sim_.ms_at(s)); };
  const double hot_before = mean_latency(at(hot, 30), at(hot, 110));
  const double hot_after = mean_latency(at(hot, 140), at(hot, 240));
  const double cool_before = mean_latency(at(cool, 30), at(cool, 110));
  const double cool_after = mean_latency(at(cool, 140), at(cool, 240));
  EXPECT_NEAR(hot_before, cool_before, 0.1 * cool_before);
  // The thermal slowdown pulls GPU 0's clocks to 60%: its requests take 1/0.6 as long, and more queue.
  EXPECT_GT(hot_after, 1.5 * hot_before) << hot_before << " -> " << hot_after;
  EXPECT_NEAR(cool_after, cool_before, 0.1 * cool_before);
  // vLLM's histogram shifts too: fewer requests under 2.5 s on the hot GPU after the slowdown.
  const auto share_under = [&](const ScrapeResult& a, const ScrapeResult& b) {
    return (sample(b, "vllm:e2e_request_latency_seconds_bucket", "le", "2.5") -
            sample(a, "vllm:e2e_request_latency_seconds_bucket", "le", "2.5")) /
           (sample(b, "vllm:e2e_request_latency_seconds_count") -
            sample(a, "vllm:e2e_request_latency_seconds_count"));
  };
  EXPECT_GT(share_under(at(hot, 30), at(hot, 110)), 0.5);
  EXPECT_LT(share_under(at(hot, 140), at(hot, 240)), 0.5 * share_under(at(hot, 30), at(hot, 110)));
}

TEST_F(SimServicesTest, DiscoveryLabelsTheServersWithTheirGpusAndALostGpuRefuses) {
  ScrapeConfig config;
  config.discovery.enabled = true;
  config.discovery.target.interval = std::chrono::milliseconds(10'000);
  config.discovery.target.timeout = std::chrono::milliseconds(2'000);
  scrape::Scraper scraper(config, proc_.path());
  const auto results = run(scraper, 250);
  std::map<std::string, std::vector<std::shared_ptr<const ScrapeResult>>> by_gpu;
  for (const auto& r : results) by_gpu[label_value(r->target, "gpu")].push_back(r);
  ASSERT_EQ(by_gpu.size(), 3u);
  EXPECT_EQ(services_.services().size(), 4u);
  const auto& first = *by_gpu["0"].front();
  EXPECT_EQ(label_value(first.target, "job"), "gpu-services");
  EXPECT_EQ(label_value(first.target, "pid"), "500");
  EXPECT_EQ(label_value(first.target, "slurm_job"), "77");
  EXPECT_EQ(label_value(first.target, "uuid").rfind("GPU-", 0), 0u);
  // Every series of the target carries its GPU, so it joins the GPU's own series on gpu or uuid.
  for (const auto& s : first.samples) EXPECT_EQ(label_value(s.labels, "gpu"), "0");

  // GPU 2 falls off the bus at 200 s: its Triton server stops answering (up 0, its series stale), as the
  // GPU's process list drops it discovery drops the target too.
  bool refused = false, stale = false;
  for (const auto& r : by_gpu["2"]) {
    if (r->t_ms < sim_.ms_at(200)) {
      EXPECT_TRUE(r->up) << r->error;
      continue;
    }
    refused = refused || (!r->up && r->error.find("refused") != std::string::npos);
    stale = stale || r->stale_markers > 0;
  }
  EXPECT_TRUE(stale);
  (void)refused;  // whether a scrape saw the refusal before discovery dropped the target depends on the tick

  // Both servers of process 501 (vLLM and TGI) are found on GPU 1.
  std::set<std::string> instances;
  for (const auto& r : by_gpu["1"]) instances.insert(label_value(r->target, "instance"));
  EXPECT_EQ(instances.size(), 2u);
}

TEST_F(SimServicesTest, ABadDeployFailsRequestsOnAHealthyGpu) {
  ScrapeConfig config;
  config.targets = {target(3)};
  scrape::Scraper scraper(config, "");
  std::map<std::int64_t, std::shared_ptr<const ScrapeResult>> by_time;
  for (const auto& r : run(scraper, 250)) by_time[r->t_ms] = r;
  const auto failed_share = [&](double from, double to) {
    const auto& a = *by_time.at(sim_.ms_at(from));
    const auto& b = *by_time.at(sim_.ms_at(to));
    const double all = sample(b, "tgi_request_count") - sample(a, "tgi_request_count");
    return (all - (sample(b, "tgi_request_success") - sample(a, "tgi_request_success"))) / all;
  };
  EXPECT_LT(failed_share(30, 140), 0.02);
  EXPECT_NEAR(failed_share(160, 200), 0.5, 0.05);
  EXPECT_LT(failed_share(220, 250), 0.02);
}

TEST_F(SimServicesTest, TritonServesItsCountersAndGauges) {
  httplib::Client client("127.0.0.1", static_cast<int>(services_.services()[2].port));
  sim_.advance_to(100);
  const auto r = client.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_NE(r->body.find("nv_inference_request_success{model=\"resnet\",version=\"1\"} "), std::string::npos);
  EXPECT_NE(r->body.find("nv_inference_request_duration_us{"), std::string::npos);
  EXPECT_NE(r->body.find("nv_inference_queue_duration_us{"), std::string::npos);
  EXPECT_NE(r->body.find("nv_inference_pending_request_count{"), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch
