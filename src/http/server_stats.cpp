#include "http/server_stats.h"

#include "core/metric_catalogue.h"
#include "exposition/catalogue_family.h"

namespace gpuwatch {
const char* reject_reason_name(RejectReason reason) {
  switch (reason) {
    case RejectReason::kHeaderTimeout:
      return "header_timeout";
    case RejectReason::kBodyTimeout:
      return "body_timeout";
    case RejectReason::kHeadersTooLarge:
      return "headers_too_large";
    case RejectReason::kBodyTooLarge:
      return "body_too_large";
    case RejectReason::kBusy:
      return "busy";
    case RejectReason::kReplyTooLarge:
      return "reply_too_large";
    case RejectReason::kConnectionLimit:
      return "connection_limit";
    case RejectReason::kClientConnectionLimit:
      return "client_connection_limit";
  }
  return "unknown";
}

std::vector<Family> ServerStats::families(std::size_t in_flight, std::size_t queued) const {
  std::vector<Family> out;
  Family rejected = catalogue_family(Metric::kHttpRejected);
  for (std::size_t i = 0; i < kRejectReasons; ++i) {
    // Every reason from 0, so that an alert on a rate sees the first refusal.
    rejected.series.push_back(Series{{{"reason", reject_reason_name(static_cast<RejectReason>(i))}},
                                     static_cast<double>(rejected_[i].load())});
  }
  out.push_back(std::move(rejected));
  out.push_back(single_value_family(Metric::kHttpConnections, static_cast<double>(connections.load())));
  out.push_back(single_value_family(Metric::kHttpInFlight, static_cast<double>(in_flight)));
  out.push_back(single_value_family(Metric::kHttpQueued, static_cast<double>(queued)));
  return out;
}

void ServerStats::append_metrics(std::string& out, ExpositionFormat format, std::size_t in_flight,
                                 std::size_t queued) const {
  for (const auto& family : families(in_flight, queued)) append_family(out, family, format);
}

}  // namespace gpuwatch
