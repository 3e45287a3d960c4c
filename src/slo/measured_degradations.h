// What the GPUs measured that can explain a burn even when no gpuwatch alert holds (yet): clocks held down
// (the SM clock under 80% of its maximum while an event holds it), memory near full (over 95%), an XID seen
// (for 10 minutes after it). Read from each snapshot by the SLO sink, kept as alert-shaped records (labels
// alertname, gpu, uuid, severity ticket, measured true; began when first seen, resolved when it stopped) so
// the cause ranking treats them like alerts; at equal rank an alert comes first.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "alerting/alert.h"
#include "core/snapshot.h"

namespace gpuwatch::slo {

class MeasuredDegradations {
 public:
  void observe(const Snapshot& snapshot);
  // The degradations that hold, and those that stopped in the last 15 minutes (resolved).
  std::vector<alerting::Alert> current() const { return list_; }

 private:
  struct Held {
    alerting::Alert record;
    std::int64_t last_seen_ms = 0;
  };
  std::map<std::tuple<std::string, std::string>, Held> held_;          // (uuid, what) -> record
  std::map<std::string, std::map<unsigned, std::uint64_t>> xid_seen_;  // uuid -> the counts last read
  std::vector<alerting::Alert> list_;
};

}  // namespace gpuwatch::slo
