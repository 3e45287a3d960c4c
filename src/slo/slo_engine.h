// The SLOs' state, kept incrementally from the scrapes the snapshots carry: per SLO, events per window
// (RollingWindow, 5m ... 3d and the period), the GPUs its series run on, and at each evaluation the SLI, the
// budget left, the burn rate per window and the workbook's alerts as conditions for the alert engine, their
// description naming the GPU cause. Not thread-safe except status(); the SLO sink owns it on its thread.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "alerting/alert.h"
#include "core/condition.h"
#include "core/scrape_result.h"
#include "slo/gpu_cause.h"
#include "slo/period_window.h"
#include "slo/rolling_window.h"
#include "slo/slo_spec.h"

namespace gpuwatch::slo {

struct SloStatus {
  std::string service;
  std::string name;
  double objective = 0;
  double sli_now = 1;     // the good ratio over 5m (1 with no events)
  double sli_period = 1;  // over the period
  double budget_remaining =
      1;  // 1 - (bad ratio over the period / allowed bad ratio); negative when overspent
  std::map<std::string, double> burn_rate;  // by window ("5m", ..., "3d", "period")
  std::map<std::string, double> sli;        // the good ratio by window, as burn_rate (1 with no events)
  std::string alert_state = "ok";           // "ok", "ticket" or "page"
  std::set<std::string> gpus;               // the GPUs serving it
  std::vector<GpuCause> causes;             // while it burns
  std::int64_t burning_since_ms = 0;        // 0 when the 5m burn rate is at or under 1
};

class SloEngine {
 public:
  explicit SloEngine(std::vector<SloSpec> specs);

  // The events of one scrape: counter increases of the series each SLO's selectors match.
  void consume(const ScrapeResult& scrape);
  // Every SLO at now_ms; the conditions that hold (one per SLO and severity). gpu_alerts: the alert engine's
  // alerts, for the cause.
  std::vector<Condition> evaluate(std::int64_t now_ms, std::span<const alerting::Alert> gpu_alerts);

  std::vector<SloStatus> status() const;  // thread-safe
  const std::vector<SloSpec>& specs() const { return specs_; }

 private:
  struct Use {
    std::size_t slo = 0;
    bool total = false;  // else the events side
    const EventSelector* selector = nullptr;
  };
  // What one target fed an SLO's total side: while the target is away (down, or dropped with staleness
  // markers, as when its GPU falls off the bus), its last request rate counts as failed requests, for an
  // hour at most: the requests sent to a server that does not answer fail, though no counter says so.
  struct Feed {
    double rate = 0;  // total events per second between its last two scrapes
    std::int64_t last_ms = 0;
    std::int64_t away_since_ms = 0;  // 0 while it answers
  };
  struct State {
    explicit State(const SloSpec& spec) : period(spec) {}
    void add(std::int64_t t_ms, EventCounts events) {
      for (auto& w : windows) w.add(t_ms, events);
      period.add(t_ms, events);
    }
    std::map<std::string, Feed> feeds;              // by target
    std::vector<RollingWindow> windows;             // slo_windows()
    PeriodWindow period;                            // the budget's period, rolling or calendar
    std::map<std::string, std::int64_t> gpus_seen;  // gpu -> last time a matched series carried it
    std::int64_t burning_since_ms = 0;
  };

  void count_away_targets(std::size_t slo, std::int64_t now_ms);

  std::vector<SloSpec> specs_;
  std::vector<State> states_;
  // The selectors of one metric name, indexed by their first equality matcher (model="x", pid="7"), so a
  // sample meets only the selectors that can match it, however many SLOs share the metric.
  struct MetricUses {
    std::vector<Use> unindexed;
    std::map<std::string, std::unordered_map<std::string, std::vector<Use>>> by_label;
  };
  void index(std::size_t slo, bool total, const EventSelector& s);
  std::unordered_map<std::string, MetricUses> by_metric_;
  std::unordered_map<std::string, double> last_value_;  // by series (labels joined)
  mutable std::mutex status_mu_;
  std::vector<SloStatus> status_;
};

}  // namespace gpuwatch::slo
