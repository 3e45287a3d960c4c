// Everything alerting in the agent, assembled from the options: the engine, the router, the delivery
// workers (Alertmanager, webhook), the silences and the HTTP routes and /metrics families that expose them.
// evaluate() runs on the agent's detection sink thread; the routes and metrics run on server threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "alerting/alert_engine.h"
#include "alerting/alert_metrics.h"
#include "alerting/alert_router.h"
#include "alerting/alert_state_file.h"
#include "alerting/delivery_worker.h"
#include "alerting/rules_api.h"
#include "alerting/silences.h"
#include "exposition/exposition.h"
#include "http/http_route.h"

namespace gpuwatch::alerting {

struct AlertingOptions {
  AlertEngineOptions engine;
  std::string alertmanager_url;  // "" = standalone routing
  std::string webhook_url;       // "" = none
  std::string tls_ca_file;       // the CA of https:// Alertmanager and webhook URLs; "" = the system's
  std::string data_dir;          // "" = queue, silences and alert state in memory only (lost on restart)
  std::string api_token;         // bearer token for mutations; "" = mutations disabled
  std::string runbook_dir;   // <alertname>.md files served before the built-in runbooks; "" = built-in only
  std::string external_url;  // how users reach this agent, e.g. http://node7:19400
  std::chrono::milliseconds resend_interval{std::chrono::minutes(1)};
  RetryPolicy retry;
  std::vector<std::string> group_by{"service", "severity"};  // webhook message groups (standalone)
  std::vector<Silence> config_silences;                      // maintenance windows from the config
  std::size_t config_silence_errors = 0;  // problems found reading them (those silences were left out)
  std::string api_token_error;            // why the token file could not be used (mutations are refused)
  std::vector<RuleGroup> rule_groups;     // what /api/v1/rules lists: the detectors and their alerts
  std::chrono::milliseconds evaluation_interval{0};  // how often evaluate() runs (the sampling interval)
};

class AlertingService {
 public:
  // now: the agent's clock, for API requests (silence states). Throws std::runtime_error when a URL is
  // malformed. A data dir that cannot be used costs persistence only (logged).
  AlertingService(AlertingOptions options, std::function<std::int64_t()> now);
  ~AlertingService();
  AlertingService(const AlertingService&) = delete;
  AlertingService& operator=(const AlertingService&) = delete;

  // One evaluation with every condition that holds at now_ms. Never blocks on a receiver. The first one
  // takes back the alerts a previous run saved in the data dir (alert_state_file.h); each one that changes
  // an alert's lifecycle saves them durably.
  void evaluate(std::span<const Condition> conditions, std::int64_t now_ms);

  std::vector<Alert> alerts() const { return engine_.alerts(); }
  // Whether an active silence selects an alert with these labels (plus the hostname and extra labels every
  // alert gets) at now_ms: a silence of a GPU's labels is its maintenance window. Thread-safe.
  bool silenced(const LabelSet& labels, std::int64_t now_ms) const;
  std::vector<HttpRoute> routes();
  void append_metrics(std::string& out, ExpositionFormat format) const;
  // The same families, for the agent's one list of what it serves and stores. Thread-safe.
  AlertFamilies families() const;

 private:
  HttpReply list_alerts() const;
  HttpReply list_silences() const;
  HttpReply add_silence(const HttpRequest& req);
  HttpReply delete_silence(const HttpRequest& req);
  HttpReply runbook(const HttpRequest& req) const;
  HttpReply list_rules(const HttpRequest& req) const;
  // An error reply when the request may not change silences, else nullopt.
  std::optional<HttpReply> refuse_mutation(const HttpRequest& req) const;
  // The API token's check: a bearer token equal to the configured one.
  std::optional<HttpReply> refuse_without_token(const HttpRequest& req) const;

  void restore_saved_alerts(std::int64_t now_ms);
  void save_alerts(std::vector<Alert> alerts, std::int64_t now_ms);

  AlertingOptions options_;
  std::function<std::int64_t()> now_;
  std::string state_path_;                 // "" = no data dir
  std::optional<SavedAlerts> to_restore_;  // read at start, taken back at the first evaluation
  std::string saved_key_;                  // the lifecycle last saved
  std::int64_t saved_at_ms_ = 0;           // when
  AlertEngine engine_;
  std::shared_ptr<SilenceStore> silences_;
  std::vector<std::unique_ptr<DeliveryWorker>> workers_;
  std::unique_ptr<AlertRouter> router_;
  mutable std::mutex evaluated_mu_;
  std::int64_t last_evaluation_ms_ = 0;
  double evaluation_seconds_ = 0;
};

}  // namespace gpuwatch::alerting
