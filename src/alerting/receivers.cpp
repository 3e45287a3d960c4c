#include <map>

#include "alerting/alert_json.h"
#include "alerting/receiver.h"
#include "core/json_text.h"
#include "net/http_client.h"

namespace gpuwatch::alerting {
namespace {

constexpr auto kConnectTimeout = std::chrono::seconds(2);
constexpr auto kIoTimeout = std::chrono::seconds(5);

std::string post_json(const std::string& url, const nlohmann::json& body, const std::string& ca_file) {
  std::string error;
  const auto parsed = net::parse_url(url, &error);
  if (!parsed) return error;
  net::ClientOptions options;
  options.timeouts = {kConnectTimeout, kIoTimeout, {}};
  options.tls.ca_file = ca_file;
  const net::Request request{
      "POST", parsed->target, {{"Content-Type", "application/json"}}, to_json_text(body), {}, {}};
  try {
    const auto res = net::make_http_client(*parsed, options)->send(request);
    if (!res.ok()) return res.failure.message;
    if (res.response.status / 100 != 2) {
      return net::describe(*parsed, request) + ": HTTP " + std::to_string(res.response.status) + " " +
             res.response.body.substr(0, 300);
    }
  } catch (const net::ClientError& e) {
    // a missing TLS module: this receiver alone fails
    return net::describe(*parsed, request) + ": " + e.what();
  }
  return "";
}

class AlertmanagerReceiver final : public Receiver {
 public:
  AlertmanagerReceiver(std::string base_url, std::string ca_file)
      : url_(std::move(base_url)), ca_file_(std::move(ca_file)) {
    while (!url_.empty() && url_.back() == '/') url_.pop_back();
    url_ += "/api/v2/alerts";
  }
  const std::string& name() const override { return name_; }
  std::string send(const std::vector<nlohmann::json>& wire_alerts) override {
    nlohmann::json body = nlohmann::json::array();
    for (const auto& a : wire_alerts) body.push_back(postable_alert(a));
    return post_json(url_, body, ca_file_);
  }

 private:
  std::string url_;
  std::string ca_file_;
  std::string name_ = "alertmanager";
};

class WebhookReceiver final : public Receiver {
 public:
  WebhookReceiver(std::string url, std::vector<std::string> group_by, std::string external_url,
                  std::string ca_file)
      : url_(std::move(url)),
        group_by_(std::move(group_by)),
        external_url_(std::move(external_url)),
        ca_file_(std::move(ca_file)) {}
  const std::string& name() const override { return name_; }
  std::string send(const std::vector<nlohmann::json>& wire_alerts) override {
    std::map<LabelSet, std::vector<nlohmann::json>> groups;
    for (const auto& a : wire_alerts) {
      LabelSet key;
      for (const auto& name : group_by_) {
        const auto& labels = a.at("labels");
        if (labels.contains(name)) key[name] = labels[name].get<std::string>();
      }
      groups[key].push_back(a);
    }
    for (const auto& [group_labels, alerts] : groups) {
      if (auto error = post_json(url_, webhook_message(alerts, group_labels, name_, external_url_), ca_file_);
          !error.empty()) {
        return error;
      }
    }
    return "";
  }

 private:
  std::string url_;
  std::vector<std::string> group_by_;
  std::string external_url_;
  std::string ca_file_;
  std::string name_ = "webhook";
};

}  // namespace

std::unique_ptr<Receiver> make_alertmanager_receiver(const std::string& base_url, std::string ca_file) {
  return std::make_unique<AlertmanagerReceiver>(base_url, std::move(ca_file));
}

std::unique_ptr<Receiver> make_webhook_receiver(const std::string& url, std::vector<std::string> group_by,
                                                std::string external_url, std::string ca_file) {
  return std::make_unique<WebhookReceiver>(url, std::move(group_by), std::move(external_url),
                                           std::move(ca_file));
}

}  // namespace gpuwatch::alerting
