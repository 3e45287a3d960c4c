#include <gtest/gtest.h>

#include "core/stale_marker.h"
#include "mistral_availability.h"
#include "slo/slo_engine.h"
#include "slo/spec_files.h"

namespace gpuwatch::slo {
namespace {

const char* const kSpec = test::kMistralAvailability;

// One scrape of a Triton-shaped server on GPU 4 with cumulative counters.
ScrapeResult scrape(std::int64_t t_ms, double success, double failure) {
  ScrapeResult r;
  r.t_ms = t_ms;
  r.up = true;
  const Labels base = {
      {"gpu", "4"}, {"instance", "127.0.0.1:18004"}, {"job", "inference"}, {"model", "mistral"}};
  for (const auto& [name, v] : {std::pair{"nv_inference_request_success", success},
                                std::pair{"nv_inference_request_failure", failure}}) {
    Labels l = {{"__name__", name}};
    l.insert(l.end(), base.begin(), base.end());
    r.samples.push_back({l, t_ms, v});
  }
  return r;
}

alerting::Alert gpu_alert(const std::string& name, const std::string& gpu, std::int64_t at_ms) {
  alerting::Alert a;
  a.labels = {{"alertname", name}, {"gpu", gpu}, {"uuid", "GPU-" + gpu}, {"severity", "page"}};
  a.annotations = {{"description", "xid 43 from pid 70104"}};
  a.state = alerting::AlertState::kFiring;
  a.active_at_ms = at_ms;
  return a;
}

struct BurnRun {
  SloEngine engine{parse_slo_text(kSpec, "s.yaml")};
  double success = 0, failure = 0;
  std::int64_t t = 0;
  // Advance `seconds` at `rps` with `error_ratio`, scraping every 5 s; returns the first page's time or -1.
  std::int64_t go(int seconds, double rps, double error_ratio, std::span<const alerting::Alert> alerts,
                  std::vector<Condition>* last = nullptr) {
    std::int64_t paged = -1;
    for (int s = 0; s < seconds; s += 5) {
      t += 5000;
      success += 5 * rps * (1 - error_ratio);
      failure += 5 * rps * error_ratio;
      engine.consume(scrape(t, success, failure));
      auto conditions = engine.evaluate(t, alerts);
      for (const auto& c : conditions) {
        if (c.severity == Severity::kPage && paged < 0) paged = t;
      }
      if (last) *last = conditions;
    }
    return paged;
  }
};

TEST(SloEngine, HealthyTrafficRaisesNothing) {
  BurnRun run;
  EXPECT_EQ(run.go(3600, 20, 0.002, {}), -1);
  const auto st = run.engine.status();
  ASSERT_EQ(st.size(), 1u);
  EXPECT_NEAR(st[0].sli_now, 0.998, 1e-3);
  EXPECT_NEAR(st[0].burn_rate.at("1h"), 0.2, 0.02);
  EXPECT_NEAR(st[0].budget_remaining, 0.8, 0.02);
  EXPECT_EQ(st[0].alert_state, "ok");
  EXPECT_EQ(st[0].gpus, std::set<std::string>{"4"});
}

TEST(SloEngine, ABurnPagesAndNamesTheGpuCause) {
  BurnRun run;
  run.go(120, 20, 0.002, {});
  const std::vector<alerting::Alert> alerts = {gpu_alert("GpuXidCritical", "4", run.t),
                                               gpu_alert("GpuThermalThrottle", "1", run.t)};
  std::vector<Condition> last;
  const std::int64_t began = run.t;
  const std::int64_t paged = run.go(600, 20, 0.5, alerts, &last);
  ASSERT_GT(paged, 0);
  EXPECT_LE(paged - began, 60'000);  // two minutes of history: the 1h window holds only those
  // Both severities hold (with ten minutes of history every window is over its factor), as both of
  // Prometheus's alerts would; the page first.
  ASSERT_EQ(last.size(), 2u);
  EXPECT_EQ(last[0].severity, Severity::kPage);
  EXPECT_EQ(last[1].severity, Severity::kTicket);
  EXPECT_EQ(last[0].labels.at("slo"), "availability");
  EXPECT_EQ(last[0].labels.at("service"), "mistral");
  EXPECT_NE(last[0].description.find("GPU cause: gpu=\"4\" uuid=GPU-4 GpuXidCritical"), std::string::npos)
      << last[0].description;
  EXPECT_EQ(last[0].description.find("GpuThermalThrottle"), std::string::npos);  // GPU 1 does not serve it
  const auto st = run.engine.status();
  EXPECT_EQ(st[0].alert_state, "page");
  ASSERT_EQ(st[0].causes.size(), 1u);
  EXPECT_GT(st[0].burn_rate.at("5m"), 14.4);
}

TEST(SloEngine, ABurnWithoutAGpuConditionSaysSo) {
  BurnRun run;
  run.go(120, 20, 0.002, {});
  std::vector<Condition> last;
  ASSERT_GT(run.go(600, 20, 0.3, {}, &last), 0);
  ASSERT_FALSE(last.empty());
  EXPECT_NE(last[0].description.find("GPU cause: no GPU cause found"), std::string::npos);
}

TEST(SloEngine, ACounterResetIsAnIncreaseNotANegativeOne) {
  BurnRun run;
  run.go(600, 20, 0.002, {});
  run.success = 0;  // the server restarted
  run.failure = 0;
  run.go(60, 20, 0.002, {});
  EXPECT_NEAR(run.engine.status()[0].sli_now, 0.998, 2e-3);
  EXPECT_GT(run.engine.status()[0].burn_rate.at("5m"), 0);
}

TEST(SloEngine, ATargetThatStopsAnsweringFailsItsLastRequestRate) {
  BurnRun run;
  run.go(300, 20, 0.002, {});
  // The server's GPU fell off the bus: its series go stale, then its scrapes fail.
  ScrapeResult gone = scrape(run.t + 5000, run.success, run.failure);
  for (auto& s : gone.samples) s.value = stale_marker();
  run.engine.consume(gone);
  for (int i = 2; i <= 120; ++i) {
    ScrapeResult down;
    down.t_ms = run.t + i * 5000;
    down.up = false;
    run.engine.consume(down);
    run.engine.evaluate(down.t_ms, {});
  }
  const auto st = run.engine.status();
  EXPECT_LT(st[0].sli_now, 0.05);  // five minutes of its 20 requests/s, all failed
  EXPECT_EQ(st[0].alert_state, "page");
}

TEST(SloEngine, ABurnAboveTwiceItsBaselineEscalatesAfterTenMinutes) {
  BurnRun run;
  run.go(6 * 3600, 20, 0.002, {});  // a baseline of 0.2x
  std::vector<Condition> last;
  run.go(15 * 60, 20, 0.008, {}, &last);  // 0.8% errors: 0.8x now, four times the baseline: no page
  ASSERT_EQ(last.size(), 0u);             // above 2x the baseline but not above 1x: nothing
  run.go(15 * 60, 20, 0.03, {}, &last);   // 3x now: over 1x and over twice the 1d baseline, under 14.4x
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].alertname, "SloBurnRateEscalating");
  EXPECT_EQ(last[0].severity, Severity::kTicket);
  EXPECT_EQ(last[0].for_duration, std::chrono::minutes(10));
  EXPECT_EQ(last[0].labels.at("slo"), "availability");
}

}  // namespace
}  // namespace gpuwatch::slo
