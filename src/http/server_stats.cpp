#include "http/server_stats.h"

#include <vector>

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

void ServerStats::append_metrics(std::string& out, ExpositionFormat format, std::size_t in_flight,
                                 std::size_t queued) const {
  Family rejected{"gpuwatch_http_requests_rejected_total",
                  FamilyType::kCounter,
                  "",
                  "Requests and connections the HTTP server refused or cut off, by reason",
                  {}};
  for (std::size_t i = 0; i < kRejectReasons; ++i) {
    rejected.series.push_back(Series{{{"reason", reject_reason_name(static_cast<RejectReason>(i))}},
                                     static_cast<double>(rejected_[i].load())});
  }
  const Family connections{"gpuwatch_http_connections",
                           FamilyType::kGauge,
                           "",
                           "Client connections the HTTP server holds open",
                           {Series{{}, static_cast<double>(this->connections.load())}}};
  const Family running{"gpuwatch_http_requests_in_flight",
                       FamilyType::kGauge,
                       "",
                       "Requests to added routes (queries, alerts) being answered by the worker pool",
                       {Series{{}, static_cast<double>(in_flight)}}};
  const Family waiting{"gpuwatch_http_requests_queued",
                       FamilyType::kGauge,
                       "",
                       "Requests to added routes waiting for a worker",
                       {Series{{}, static_cast<double>(queued)}}};
  for (const Family* f : std::initializer_list<const Family*>{&rejected, &connections, &running, &waiting}) {
    append_family(out, *f, format);
  }
}

}  // namespace gpuwatch
