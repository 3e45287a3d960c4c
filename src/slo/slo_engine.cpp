#include "slo/slo_engine.h"

#include <fmt/format.h>
#include <algorithm>

#include "core/duration.h"
#include "core/stale_marker.h"
#include "slo/burn_rules.h"

namespace gpuwatch::slo {
namespace {

constexpr double kEscalationFactor = 2;             // the burn now against its 1d baseline
constexpr std::int64_t kGpuForgetMs = 10 * 60'000;  // a GPU no matched series carried for 10 min left the SLO

const std::string* label_value(const Labels& labels, const std::string& name) {
  for (const auto& [k, v] : labels) {
    if (k == name) return &v;
  }
  return nullptr;
}

bool matches(const EventSelector& s, const Labels& labels) {
  static const std::string kEmpty;
  for (const auto& m : s.matchers) {
    const std::string* v = label_value(labels, m.name());
    if (!m.matches(v ? *v : kEmpty)) return false;
  }
  return true;
}

std::string series_key(const Labels& labels) {
  std::string key;
  for (const auto& [k, v] : labels) {
    key += k;
    key += '\x1f';
    key += v;
    key += '\x1e';
  }
  return key;
}

void split_into(const std::string& list, std::set<std::string>& out) {
  std::size_t start = 0;
  while (start <= list.size()) {
    const auto comma = list.find(',', start);
    const auto part = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!part.empty()) out.insert(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

// Bad events and total in a window; `events` holds the file's side (bad or good).
EventCounts bad_of(const SloSpec& spec, EventCounts events) {
  if (spec.kind == EventKind::kGood) return {std::max(0.0, events.total - events.bad), events.total};
  return events;
}

double burn(const SloSpec& spec, EventCounts c) {
  if (c.total <= 0) return 0;
  return (c.bad / c.total) / (1 - spec.objective);
}

Condition condition(const SloSpec& spec, const SloStatus& s, const BurnRule& rule,
                    std::map<std::int64_t, double>& burn_by_ms) {
  Condition c;
  c.alertname = spec.alertname;
  c.severity = rule.severity;
  c.labels = {{"slo", spec.name}, {"service", spec.service}};
  c.summary = fmt::format("SLO {} of {} is burning its error budget at {:.1f}x", spec.name, spec.service,
                          burn_by_ms[rule.long_window.count()]);
  c.description = fmt::format(
      "burn rate {:.1f}x over {} and {:.1f}x over {} (alert above {}x); budget remaining {:.1f}%; GPU cause: "
      "{}",
      burn_by_ms[rule.long_window.count()], window_name(rule.long_window),
      burn_by_ms[rule.short_window.count()], window_name(rule.short_window), rule.factor,
      100 * s.budget_remaining, describe_causes(s.causes));
  if (s.causes.empty()) {
    c.action = "No GPU condition overlaps the burn: look at the service (deploys, traffic).";
  } else {
    const GpuCause& first = s.causes.front();
    c.action = "Start with GPU " + first.gpu + ": " + first.alertname +
               (first.is_measured ? " (measured: " + first.measured + ")"
                                  : " (docs/runbooks/" + first.alertname + ".md)") +
               ".";
  }
  return c;
}

}  // namespace

SloEngine::SloEngine(std::vector<SloSpec> specs) : specs_(std::move(specs)) {
  states_.reserve(specs_.size());
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    states_.emplace_back(specs_[i]);
    for (const auto w : slo_windows()) states_[i].windows.emplace_back(w);
    for (const auto& s : specs_[i].events) index(i, false, s);
    for (const auto& s : specs_[i].total) index(i, true, s);
  }
  status_.resize(specs_.size());
}

void SloEngine::index(std::size_t slo, bool total, const EventSelector& s) {
  MetricUses& uses = by_metric_[s.metric];
  for (const auto& m : s.matchers) {
    if (m.op() == MatchOp::kEqual && !m.value().empty()) {
      uses.by_label[m.name()][m.value()].push_back({slo, total, &s});
      return;
    }
  }
  uses.unindexed.push_back({slo, total, &s});
}

void SloEngine::consume(const ScrapeResult& scrape) {
  static const std::string kName = "__name__";
  const std::string target = series_key(scrape.target);
  std::map<std::size_t, double> total_added;  // by SLO: this scrape's total events
  bool went_stale = !scrape.up;
  for (const auto& sample : scrape.samples) {
    const std::string* name = label_value(sample.labels, kName);
    if (name == nullptr) continue;
    const auto uses = by_metric_.find(*name);
    if (uses == by_metric_.end()) continue;
    const std::string key = series_key(sample.labels);
    if (is_stale_marker(sample.value)) {
      last_value_.erase(key);
      went_stale = true;
      continue;
    }
    // A counter's increase since its previous sample; a drop is a reset (the new value is the increase);
    // the first sample of a series only sets its start, as rate() needs two samples.
    double delta = 0;
    const auto [it, first] = last_value_.try_emplace(key, sample.value);
    if (!first) {
      delta = sample.value >= it->second ? sample.value - it->second : sample.value;
      it->second = sample.value;
    }
    const std::string* gpu = label_value(sample.labels, "gpu");
    const auto feed = [&](const Use& u) {
      if (!matches(*u.selector, sample.labels)) return;
      State& st = states_[u.slo];
      if (gpu != nullptr) {
        std::set<std::string> gpus;
        split_into(*gpu, gpus);
        for (const auto& g : gpus) st.gpus_seen[g] = sample.t_ms;
      }
      if (u.total) total_added[u.slo] += delta;
      if (delta <= 0) return;
      const EventCounts add = u.total ? EventCounts{0, delta} : EventCounts{delta, 0};
      st.add(sample.t_ms, add);
    };
    for (const Use& u : uses->second.unindexed) feed(u);
    for (const auto& [label, by_value] : uses->second.by_label) {
      const std::string* v = label_value(sample.labels, label);
      if (v == nullptr) continue;
      const auto hit = by_value.find(*v);
      if (hit == by_value.end()) continue;
      for (const Use& u : hit->second) feed(u);
    }
  }
  for (const auto& [slo, added] : total_added) {
    Feed& f = states_[slo].feeds[target];
    if (f.last_ms > 0 && scrape.t_ms > f.last_ms)
      f.rate = added / (static_cast<double>(scrape.t_ms - f.last_ms) / 1000);
    f.last_ms = scrape.t_ms;
    f.away_since_ms = 0;
  }
  if (!went_stale || !total_added.empty()) return;
  for (auto& st : states_) {
    const auto it = st.feeds.find(target);
    if (it != st.feeds.end() && it->second.away_since_ms == 0) it->second.away_since_ms = scrape.t_ms;
  }
}

void SloEngine::count_away_targets(std::size_t slo, std::int64_t now_ms) {
  constexpr std::int64_t kAwayCountedMs = 3'600'000;
  State& st = states_[slo];
  for (auto& [target, f] : st.feeds) {
    if (f.away_since_ms == 0 || now_ms <= f.last_ms) continue;
    if (now_ms - f.away_since_ms > kAwayCountedMs) continue;
    const double n = f.rate * static_cast<double>(now_ms - f.last_ms) / 1000;
    f.last_ms = now_ms;
    // Failed requests: bad events on a bad/total SLI, only total ones on a good/total SLI.
    const EventCounts add = specs_[slo].kind == EventKind::kBad ? EventCounts{n, n} : EventCounts{0, n};
    st.add(now_ms, add);
  }
}

std::vector<Condition> SloEngine::evaluate(std::int64_t now_ms, std::span<const alerting::Alert> gpu_alerts) {
  std::vector<Condition> out;
  std::vector<SloStatus> fresh(specs_.size());
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    const SloSpec& spec = specs_[i];
    State& st = states_[i];
    SloStatus& s = fresh[i];
    count_away_targets(i, now_ms);
    s.service = spec.service;
    s.name = spec.name;
    s.objective = spec.objective;
    std::map<std::int64_t, double> burn_by_ms;
    for (std::size_t w = 0; w <= st.windows.size(); ++w) {
      const bool period = w == st.windows.size();
      const EventCounts c = bad_of(spec, period ? st.period.sum(now_ms) : st.windows[w].sum(now_ms));
      const double b = burn(spec, c);
      const std::string name = period ? "period" : window_name(st.windows[w].window());
      s.burn_rate[name] = b;
      if (!period) burn_by_ms[st.windows[w].window().count()] = b;
      const double sli = c.total > 0 ? 1 - c.bad / c.total : 1;
      s.sli[name] = sli;
      if (w == 0) s.sli_now = sli;
      if (period) {
        s.sli_period = sli;
        s.budget_remaining = 1 - b;
      }
    }
    if (spec.gpus.empty()) {
      std::erase_if(st.gpus_seen, [&](const auto& kv) { return now_ms - kv.second > kGpuForgetMs; });
      for (const auto& [g, seen] : st.gpus_seen) s.gpus.insert(g);
    } else {
      s.gpus.insert(spec.gpus.begin(), spec.gpus.end());
    }
    const double now_burn = burn_by_ms[std::chrono::milliseconds(std::chrono::minutes(5)).count()];
    if (now_burn <= 1) {
      st.burning_since_ms = 0;
    } else if (st.burning_since_ms == 0) {
      st.burning_since_ms = now_ms;
    }
    s.burning_since_ms = st.burning_since_ms;

    // One condition per severity that holds (as Prometheus raises the page and the ticket alert alike); the
    // table runs from the most urgent down, so the status shows the first.
    std::set<Severity> raised_severities;
    for (const auto& rule : workbook_burn_rules()) {
      if (rule.severity == Severity::kPage ? !spec.page_enabled : !spec.ticket_enabled) continue;
      if (raised_severities.count(rule.severity)) continue;
      if (!(burn_by_ms[rule.long_window.count()] > rule.factor &&
            burn_by_ms[rule.short_window.count()] > rule.factor))
        continue;
      raised_severities.insert(rule.severity);
      if (s.alert_state == "ok") {
        s.alert_state = std::string(severity_name(rule.severity));
        s.causes = rank_gpu_causes(s.gpus, gpu_alerts, st.burning_since_ms ? st.burning_since_ms : now_ms);
      }
      out.push_back(condition(spec, s, rule, burn_by_ms));
    }
    // Escalation: the burn now (5m) above 1 and above twice its baseline (the 1d burn rate) for 10 minutes
    // (the alert engine's for), a ticket before the budget table would page.
    const double baseline = burn_by_ms[std::chrono::milliseconds(std::chrono::hours(24)).count()];
    if (spec.ticket_enabled && now_burn > 1 && now_burn > kEscalationFactor * baseline) {
      Condition c;
      c.alertname = "SloBurnRateEscalating";
      c.severity = Severity::kTicket;
      c.labels = {{"slo", spec.name}, {"service", spec.service}};
      c.summary = fmt::format("SLO {} of {} burns at {:.1f}x, over twice its usual {:.1f}x", spec.name,
                              spec.service, now_burn, baseline);
      c.description = fmt::format("burn rate {:.1f}x over 5m, {:.1f}x over 1d", now_burn, baseline);
      c.action = "Watch the budget: if the burn holds it pages (SloErrorBudgetBurn); look at what changed.";
      c.for_duration = std::chrono::minutes(10);
      out.push_back(std::move(c));
    }
  }
  std::lock_guard lock(status_mu_);
  status_ = std::move(fresh);
  return out;
}

std::vector<SloStatus> SloEngine::status() const {
  std::lock_guard lock(status_mu_);
  return status_;
}

}  // namespace gpuwatch::slo
