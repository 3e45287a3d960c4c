// The SLO game day on scenarios/inference-slo-8xh200.yaml in lockstep, through the agent's parts as the agent
// wires them: the collector scraping the simulator's model servers (found by discovery), detection, the SLO
// engine (scenarios/inference-slo-8xh200.slos.yaml) and one alert engine for both. The scenario's design says
// which services its faults hurt (its header): those SLOs, and only those, must page; the first page within
// 10 scenario minutes; a page caused by a GPU fault names that GPU first; the bad deploy names no GPU.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "alerting/alert_engine.h"
#include "collector/collector.h"
#include "detect/detection.h"
#include "scrape/scraper.h"
#include "sim_serve/sim_services.h"
#include "sim_support.h"
#include "slo/measured_degradations.h"
#include "slo/slo_engine.h"
#include "slo/spec_files.h"

namespace gpuwatch {
namespace {

std::string lockstep_scenario() {
  std::ifstream in(std::string(GPUWATCH_SOURCE_DIR) + "/scenarios/inference-slo-8xh200.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  const auto at = s.find("mode: scaled");
  if (at != std::string::npos) s.replace(at, 12, "mode: lockstep");
  return s;
}

// What the scenario's faults do to the services (its header), as the SLOs measure them: the SLO that must
// page, the GPU its cause must name first ("" for none) and when the fault begins (no page before it).
struct Hurt {
  std::string gpu;
  double from_s = 0;
};
const std::map<std::string, Hurt> kHurt = {
    {"llama-gpu0-latency", {"0", 180}},         // thermal throttle from minute 3
    {"mistral-gpu4-availability", {"4", 360}},  // XID 43 at minute 6: requests fail while the server recovers
    {"mistral-gpu5-availability", {"", 420}},   // bad deploy at minute 7 on a healthy GPU
    {"qwen-latency", {"6", 480}},               // power brake from minute 8
    {"whisper-availability", {"7", 540}},       // falls off the bus at minute 9: connections refused
};

TEST(SloGameDay, PagesExactlyTheHurtServicesWithTheirGpuFirst) {
  test::SimScenario scenario(lockstep_scenario());
  test::Sim sim;
  test::TempDir proc;
  sim.write_proc_tree(proc.path());
  SimServices services(sim.library(), true);
  ASSERT_TRUE(services.write_proc_sockets(proc.path()));

  ScrapeConfig config;
  config.discovery.enabled = true;
  config.discovery.target.job = "inference";
  config.discovery.target.interval = std::chrono::milliseconds(5'000);
  config.discovery.target.timeout = std::chrono::milliseconds(2'000);
  scrape::Scraper scraper(config, proc.path());
  CollectorOptions o;
  o.nvml_library = test::sim_library_path();
  o.proc_root = proc.path();
  o.host.proc_root = proc.path();
  o.deadline = std::chrono::milliseconds(2000);
  o.scrapes = [&scraper](std::int64_t now, const Snapshot& s, std::chrono::steady_clock::time_point wait) {
    return scraper.collect(now, s, wait);
  };
  Collector collector(o);
  detect::Detection detection(detect::DetectionOptions{});
  slo::SloEngine slos(
      slo::load_slo_file(std::string(GPUWATCH_SOURCE_DIR) + "/scenarios/inference-slo-8xh200.slos.yaml"));
  alerting::AlertEngine alerts(alerting::AlertEngineOptions{});
  slo::MeasuredDegradations measured;

  std::map<std::string, double> first_page_s;          // slo -> scenario seconds
  std::map<std::string, std::string> first_cause_gpu;  // slo -> the GPU its first page named first
  for (double t = 0; t <= 15 * 60; t += 5) {
    collector.clock().sleep_until_ms(sim.ms_at(t));
    collector.tick();
    const auto snapshot = collector.latest();
    for (const auto& r : snapshot->scrapes) slos.consume(*r);
    auto conditions = detection.evaluate(*snapshot);
    measured.observe(*snapshot);
    auto current =
        alerts.alerts();  // what the SLO sink reads: the engine's alerts and the measured degradations
    for (auto& m : measured.current()) current.push_back(std::move(m));
    for (auto& c : slos.evaluate(snapshot->timestamp_ms, current)) conditions.push_back(std::move(c));
    alerts.evaluate(conditions, snapshot->timestamp_ms);
    for (const auto& s : slos.status()) {
      if (s.alert_state != "page" || first_page_s.count(s.name)) continue;
      first_page_s[s.name] = t;
      first_cause_gpu[s.name] = s.causes.empty() ? "" : s.causes.front().gpu;
      std::cout << "page " << s.name << " at " << t << " s, cause "
                << (s.causes.empty() ? "none"
                                     : s.causes.front().alertname + " on GPU " + s.causes.front().gpu)
                << "\n";
    }
  }
  ASSERT_FALSE(first_page_s.empty());
  double first = 1e9;
  for (const auto& [name, at] : first_page_s) first = std::min(first, at);
  EXPECT_LE(first, 10 * 60);
  std::size_t true_pages = 0, named_first = 0, gpu_caused = 0;
  for (const auto& [name, at] : first_page_s) {
    const auto hurt = kHurt.find(name);
    EXPECT_NE(hurt, kHurt.end()) << name << " paged at " << at << " s but its service was not hurt";
    if (hurt == kHurt.end()) continue;
    ++true_pages;
    if (!hurt->second.gpu.empty()) ++gpu_caused;
    if (first_cause_gpu[name] == hurt->second.gpu) ++named_first;
    EXPECT_EQ(first_cause_gpu[name], hurt->second.gpu) << name;
    EXPECT_GE(at, hurt->second.from_s) << name << " paged before its fault began";
  }
  const double precision = static_cast<double>(true_pages) / static_cast<double>(first_page_s.size());
  const double recall = static_cast<double>(true_pages) / static_cast<double>(kHurt.size());
  std::cout << "precision " << precision << " recall " << recall << " cause named first " << named_first
            << "/" << true_pages << " (GPU-caused " << gpu_caused << ")\n";
  EXPECT_EQ(precision, 1.0);
  EXPECT_EQ(recall, 1.0);
  for (const auto& [name, hurt] : kHurt) EXPECT_TRUE(first_page_s.count(name)) << name << " never paged";
}

}  // namespace
}  // namespace gpuwatch
