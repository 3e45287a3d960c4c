// The SLO game day on scenarios/inference-slo-8xh200.yaml in lockstep, through the agent's parts as the agent
// wires them: the collector scraping the simulator's model servers (found by discovery), detection, the SLO
// engine (scenarios/inference-slo-8xh200.slos.yaml) and one alert engine for both. The scenario's design says
// which services its faults hurt (its header): those SLOs, and only those, must page; the first page within
// 10 scenario minutes; a page caused by a GPU fault names that GPU first; the bad deploy names no GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>

#include <fmt/format.h>
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

struct Pages {
  std::map<std::string, double> first_page_s;          // slo -> scenario seconds of its first page
  std::map<std::string, std::string> first_cause_gpu;  // slo -> the GPU its first page named first
};

// Runs a scenario's first 15 minutes in lockstep and returns the SLOs' first pages.
Pages run_game_day(const std::string& scenario_text) {
  test::SimScenario scenario(scenario_text);
  test::Sim sim;
  test::TempDir proc;
  sim.write_proc_tree(proc.path());
  SimServices services(sim.library(), true);
  EXPECT_TRUE(services.write_proc_sockets(proc.path()));

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

  Pages pages;
  auto& first_page_s = pages.first_page_s;
  auto& first_cause_gpu = pages.first_cause_gpu;
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
  return pages;
}

TEST(SloGameDay, PagesExactlyTheHurtServicesWithTheirGpuFirst) {
  const Pages pages = run_game_day(lockstep_scenario());
  const auto& first_page_s = pages.first_page_s;
  auto first_cause_gpu = pages.first_cause_gpu;
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

// A game day drawn from a seed on the same eight servers: three GPU faults on distinct GPUs and one bad
// deploy of a Triton or TGI server on another GPU, at random minutes. What each fault does to the servers'
// SLOs follows the simulator's model: latency SLOs (vLLM) suffer slower clocks (thermal, power brake),
// availability SLOs (Triton, TGI) suffer failed requests (XID 43 of the server's process, a bad deploy); a
// GPU off the bus fails every server on it.
struct DrawnDay {
  std::string scenario;
  std::map<std::string, Hurt> hurt;
};

DrawnDay draw_game_day(unsigned seed) {
  static const char* kSlo[8] = {"llama-gpu0-latency",
                                "llama-gpu1-latency",
                                "resnet50-availability",
                                "bert-ranker-availability",
                                "mistral-gpu4-availability",
                                "mistral-gpu5-availability",
                                "qwen-latency",
                                "whisper-availability"};
  static const bool kVllm[8] = {true, true, false, false, false, false, true, false};
  std::mt19937 rng(seed);
  std::vector<int> gpus = {0, 1, 2, 3, 4, 5, 6, 7};
  std::shuffle(gpus.begin(), gpus.end(), rng);
  DrawnDay day;
  std::string faults = "faults:\n";
  static const char* kKinds[4] = {"thermal_throttle", "power_cap", "xid", "fall_off_bus"};
  for (int i = 0; i < 3; ++i) {
    const int g = gpus[static_cast<std::size_t>(i)];
    const std::string kind = kKinds[rng() % 4];
    const int at = 2 + static_cast<int>(rng() % 6);  // minute 2 to 7
    if (kind == "thermal_throttle") {
      faults += fmt::format("  - {{type: thermal_throttle, gpu: {}, at: {}m, duration: forever}}\n", g, at);
      if (kVllm[g]) day.hurt[kSlo[g]] = {std::to_string(g), at * 60.0};
    } else if (kind == "power_cap") {
      faults += fmt::format(
          "  - {{type: power_cap, gpu: {}, at: {}m, duration: forever, limit: 350W, brake: true}}\n", g, at);
      if (kVllm[g]) day.hurt[kSlo[g]] = {std::to_string(g), at * 60.0};
    } else if (kind == "xid") {
      faults += fmt::format("  - {{type: xid, gpu: {}, at: {}m, code: 43, pid: {}}}\n", g, at, 70100 + g);
      if (!kVllm[g]) day.hurt[kSlo[g]] = {std::to_string(g), at * 60.0};
    } else {
      faults += fmt::format("  - {{type: fall_off_bus, gpu: {}, at: {}m}}\n", g, at);
      day.hurt[kSlo[g]] = {std::to_string(g), at * 60.0};
    }
  }
  int deploy = -1;
  for (std::size_t i = 3; i < gpus.size() && deploy < 0; ++i) {
    if (!kVllm[gpus[i]]) deploy = gpus[i];
  }
  const int deploy_at = 2 + static_cast<int>(rng() % 6);
  day.hurt[kSlo[deploy]] = {"", deploy_at * 60.0};

  std::string s = lockstep_scenario();
  const auto f = s.find("\nfaults:\n"), v = s.find("\nservices:\n");
  s.replace(f + 1, v - f, faults);
  // The scenario's own service faults give way to the drawn deploy (on the server of GPU `deploy`).
  for (auto at = s.find("    faults: ["); at != std::string::npos; at = s.find("    faults: ["))
    s.erase(at, s.find('\n', at) + 1 - at);
  const std::string port_line = "    port: " + std::to_string(18000 + deploy) + "\n";
  const auto service = s.find(port_line, s.find("\nservices:\n"));
  const auto errors = s.find("    errors: 0.002\n", service);
  s.insert(
      errors + std::string("    errors: 0.002\n").size(),
      fmt::format("    faults: [{{type: bad_deploy, at: {}m, duration: 5m, errors: 0.3}}]\n", deploy_at));
  day.scenario = s;
  return day;
}

TEST(SloGameDay, RandomizedGameDaysReportPrecisionRecallAndCauses) {
  std::size_t pages = 0, true_pages = 0, hurt = 0, caught = 0, gpu_pages = 0, named_first = 0;
  for (const unsigned seed : {1u, 2u, 3u, 4u}) {
    const DrawnDay day = draw_game_day(seed);
    const Pages got = run_game_day(day.scenario);
    hurt += day.hurt.size();
    for (const auto& [name, at] : got.first_page_s) {
      ++pages;
      const auto h = day.hurt.find(name);
      if (h == day.hurt.end() || at < h->second.from_s) continue;
      ++true_pages;
      if (!h->second.gpu.empty()) {
        ++gpu_pages;
        if (got.first_cause_gpu.at(name) == h->second.gpu) ++named_first;
      } else if (got.first_cause_gpu.at(name).empty()) {
        ++named_first;  // the bad deploy: no GPU named is the right answer
        ++gpu_pages;
      }
    }
    for (const auto& [name, h] : day.hurt) caught += got.first_page_s.count(name);
  }
  const double precision = pages ? static_cast<double>(true_pages) / static_cast<double>(pages) : 0;
  const double recall = hurt ? static_cast<double>(caught) / static_cast<double>(hurt) : 0;
  const double first = gpu_pages ? static_cast<double>(named_first) / static_cast<double>(gpu_pages) : 0;
  std::cout << "randomized SLO game days (seeds 1-4): precision " << precision << " (" << true_pages << "/"
            << pages << "), recall " << recall << " (" << caught << "/" << hurt << "), cause named first "
            << first << " (" << named_first << "/" << gpu_pages << ")\n";
  RecordProperty("precision", std::to_string(precision));
  RecordProperty("recall", std::to_string(recall));
  RecordProperty("cause_named_first", std::to_string(first));
  EXPECT_GE(first, 0.9);
  EXPECT_GE(precision, 0.9);
  EXPECT_GE(recall, 0.9);
}

}  // namespace
}  // namespace gpuwatch
