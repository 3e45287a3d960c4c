#include "agent/accounting_sink.h"

namespace gpuwatch {

void AccountingSink::consume(const SnapshotPtr& snapshot) {
  std::shared_ptr<const AccountingSettings> reloaded;
  {
    std::lock_guard lock(mu_);
    reloaded = std::exchange(settings_, nullptr);
  }
  if (reloaded) ledger_.set_settings(*reloaded);
  ledger_.add(*snapshot);
  auto families = std::make_shared<const std::vector<Family>>(ledger_.families());
  if (history_) history_->append_families(snapshot->timestamp_ms, *families);
  std::lock_guard lock(mu_);
  families_ = std::move(families);
}

std::vector<Family> AccountingSink::counters() const {
  std::lock_guard lock(mu_);
  return *families_;
}

void AccountingSink::set_settings(AccountingSettings settings) {
  std::lock_guard lock(mu_);
  settings_ = std::make_shared<const AccountingSettings>(std::move(settings));
}

}  // namespace gpuwatch
