// Where alerts are delivered: Alertmanager's API v2 or a webhook. A receiver sends one batch of wire alerts
// (alert_json.h) and says whether the other side accepted all of it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuwatch::alerting {

class Receiver {
 public:
  virtual ~Receiver() = default;
  virtual const std::string& name() const = 0;  // "alertmanager", "webhook": the receiver label of metrics
  // "" when the batch was accepted, else what went wrong (the batch is retried as a whole).
  virtual std::string send(const std::vector<nlohmann::json>& wire_alerts) = 0;
};

// POSTs the batch to <base_url>/api/v2/alerts as Alertmanager's postable alerts. ca_file: for an https://
// URL, the CA its certificate is checked against ("" = the system's).
std::unique_ptr<Receiver> make_alertmanager_receiver(const std::string& base_url, std::string ca_file = "");

// POSTs one webhook v4 message per group (alerts sharing the group_by labels' values) to url.
std::unique_ptr<Receiver> make_webhook_receiver(const std::string& url, std::vector<std::string> group_by,
                                                std::string external_url, std::string ca_file = "");

}  // namespace gpuwatch::alerting
