#include "agent/published_families.h"

#include "agent/sink_set.h"

namespace gpuwatch {

void PublishedState::set_sinks(const std::shared_ptr<SinkSet>& sinks) {
  std::lock_guard lock(mu_);
  sinks_ = sinks;
}

void PublishedState::set_server_families(std::function<std::vector<Family>()> server_families) {
  std::lock_guard lock(mu_);
  server_families_ = std::move(server_families);
}

void PublishedState::set_accounting(std::function<std::vector<Family>()> accounting_families) {
  std::lock_guard lock(mu_);
  accounting_families_ = std::move(accounting_families);
}

PublishedFamilies PublishedState::stored_families() const {
  PublishedFamilies out = families();
  std::function<std::vector<Family>()> server;
  {
    std::lock_guard lock(mu_);
    server = server_families_;
  }
  if (server) {
    for (auto& family : server()) out.families.push_back(std::move(family));
  }
  return out;
}

PublishedFamilies PublishedState::families() const {
  auto alerts = alerts_->families();
  // Moving the vector keeps its elements where they are, so the label names still point into them.
  PublishedFamilies out{std::move(alerts.alerts), std::move(alerts.families)};
  std::shared_ptr<SinkSet> sinks;
  {
    std::lock_guard lock(mu_);
    sinks = sinks_.lock();
  }
  if (sinks) {
    for (auto& family : sinks->families()) out.families.push_back(std::move(family));
  }
  if (history_) {
    for (auto& family : history_->health_families()) out.families.push_back(std::move(family));
  }
  return out;
}

void PublishedState::append(std::string& out, ExpositionFormat format) const {
  const PublishedFamilies published = families();
  for (const auto& f : published.families) append_family(out, f, format);
  std::function<std::vector<Family>()> accounting;
  {
    std::lock_guard lock(mu_);
    accounting = accounting_families_;
  }
  if (accounting) {
    for (const auto& f : accounting()) append_family(out, f, format);
  }
}

}  // namespace gpuwatch
