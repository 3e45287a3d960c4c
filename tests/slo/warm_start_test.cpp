// Warm start: an engine rebuilt from stored scrapes (a history that keeps each sample at its own time)
// burns exactly as one that saw every scrape live; and the SLO figures for /metrics.
#include <gtest/gtest.h>

#include <map>

#include "mistral_availability.h"
#include "slo/slo_engine.h"
#include "slo/slo_families.h"
#include "slo/spec_files.h"
#include "slo/warm_start.h"

namespace gpuwatch::slo {
namespace {

const char* const kWarmStartSpec = test::kMistralAvailability;

// The history as the store keeps scrapes: each series with its samples at their own times.
class StoredScrapes final : public SeriesSource {
 public:
  void add(const ScrapeResult& r) {
    for (const auto& s : r.samples) series_[s.labels].push_back({s.t_ms, s.value});
  }
  std::vector<SeriesPoints> select(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                                   std::int64_t max_t) const override {
    std::vector<SeriesPoints> out;
    for (const auto& [labels, points] : series_) {
      bool match = true;
      for (const auto& m : matchers) {
        std::string v;
        for (const auto& [k, val] : labels) {
          if (k == m.name()) v = val;
        }
        match = match && m.matches(v);
      }
      if (!match) continue;
      SeriesPoints sp{labels, {}};
      for (const auto& p : points) {
        if (p.t_ms >= min_t && p.t_ms <= max_t) sp.points.push_back(p);
      }
      if (!sp.points.empty()) out.push_back(std::move(sp));
    }
    return out;
  }
  std::vector<Labels> series(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                             std::int64_t max_t) const override {
    std::vector<Labels> out;
    for (auto& s : select(matchers, min_t, max_t)) out.push_back(std::move(s.labels));
    return out;
  }

 private:
  std::map<Labels, std::vector<Point>> series_;
};

ScrapeResult scrape(const std::string& instance, std::int64_t t_ms, double success, double failure) {
  ScrapeResult r;
  r.t_ms = t_ms;
  r.up = true;
  r.target = {{"instance", instance}, {"job", "inference"}};
  for (const auto& [name, v] : {std::pair{"nv_inference_request_failure", failure},
                                std::pair{"nv_inference_request_success", success}}) {
    r.samples.push_back({{{"__name__", name},
                          {"gpu", instance == "10.0.0.1:8002" ? "4" : "5"},
                          {"instance", instance},
                          {"job", "inference"},
                          {"model", "mistral"}},
                         t_ms,
                         v});
  }
  return r;
}

TEST(SloWarmStart, ARestartedEngineBurnsAsOneThatNeverStopped) {
  const auto specs = parse_slo_text(kWarmStartSpec, "slo.yaml");
  SloEngine never_stopped(specs);
  StoredScrapes history;
  constexpr std::int64_t kStepMs = 15'000;
  constexpr int kRestartStep = 4 * 240;  // after 4 h
  std::unique_ptr<SloEngine> restarted;
  std::map<std::string, double> success, failure;
  for (int step = 0; step <= 6 * 240; ++step) {
    const std::int64_t t = step * kStepMs;
    if (step == kRestartStep) {
      restarted = std::make_unique<SloEngine>(specs);
      const auto r = warm_start(*restarted, history, t);
      EXPECT_EQ(r.series, 4u);
      EXPECT_EQ(r.samples, 4u * kRestartStep);
    }
    // Two servers; 10% errors on the second from 1 h to 3 h, 0.5% otherwise.
    for (const std::string instance : {"10.0.0.1:8002", "10.0.0.2:8002"}) {
      const bool burst = instance == "10.0.0.2:8002" && step > 240 && step <= 3 * 240;
      const double errors = burst ? 0.1 : 0.005;
      success[instance] += 60 * (1 - errors);
      failure[instance] += 60 * errors;
      const ScrapeResult r = scrape(instance, t, success[instance], failure[instance]);
      never_stopped.consume(r);
      history.add(r);
      if (restarted) restarted->consume(r);
    }
    if (step % 40 == 0) {
      never_stopped.evaluate(t, {});
      if (restarted) restarted->evaluate(t, {});
    }
  }
  const SloStatus a = never_stopped.status()[0], b = restarted->status()[0];
  for (const auto& [window, burn] : a.burn_rate) {
    EXPECT_NEAR(b.burn_rate.at(window), burn, 1e-9) << window;
    EXPECT_NEAR(b.sli.at(window), a.sli.at(window), 1e-12) << window;
  }
  EXPECT_GT(a.burn_rate.at("6h"), 2);  // the burst is in the long windows, so the comparison says something
  EXPECT_NEAR(b.budget_remaining, a.budget_remaining, 1e-9);
  EXPECT_EQ(b.gpus, (std::set<std::string>{"4", "5"}));
}

TEST(SloFamilies, EverySloFigureUnderTheCataloguesNames) {
  SloStatus s;
  s.service = "mistral";
  s.name = "availability";
  s.objective = 0.99;
  s.burn_rate = {{"5m", 14.5}, {"period", 0.5}};
  s.sli = {{"5m", 0.855}, {"period", 0.995}};
  s.budget_remaining = 0.5;
  s.alert_state = "page";
  const auto families = slo_families(std::vector<SloStatus>{s});
  std::map<std::string, std::map<std::string, double>> by_name;  // family -> "label=value,..." -> value
  for (const auto& f : families) {
    for (const auto& series : f.series) {
      std::string key;
      for (const auto& [k, v] : series.labels) key += std::string(k) + "=" + v + ",";
      by_name[std::string(f.name)][key] = series.value;
    }
  }
  EXPECT_EQ(by_name["gpuwatch_slo_objective_ratio"]["slo=availability,service=mistral,"], 0.99);
  EXPECT_EQ(by_name["gpuwatch_slo_burn_rate"]["slo=availability,service=mistral,window=5m,"], 14.5);
  EXPECT_EQ(by_name["gpuwatch_slo_burn_rate"]["slo=availability,service=mistral,window=period,"], 0.5);
  EXPECT_EQ(by_name["gpuwatch_slo_sli_ratio"]["slo=availability,service=mistral,window=5m,"], 0.855);
  EXPECT_EQ(by_name["gpuwatch_slo_error_budget_remaining_ratio"]["slo=availability,service=mistral,"], 0.5);
  EXPECT_EQ(by_name["gpuwatch_slo_error_budget_state"]["slo=availability,service=mistral,state=page,"], 1);
  EXPECT_EQ(by_name["gpuwatch_slo_error_budget_state"]["slo=availability,service=mistral,state=ok,"], 0);
  EXPECT_EQ(by_name["gpuwatch_slo_error_budget_state"].size(), 3u);
}

}  // namespace
}  // namespace gpuwatch::slo
