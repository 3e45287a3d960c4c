#include "alerting/alerting_service.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "alerting/alert_json.h"
#include "alerting/alert_metrics.h"
#include "alerting/bearer_token.h"
#include "alerting/builtin_runbooks.h"
#include "alerting/inhibition.h"
#include "core/constant_time_equal.h"
#include "core/file_io.h"
#include "core/json_text.h"
#include "core/utf8.h"
#include "net/url.h"

namespace gpuwatch::alerting {
namespace {

HttpReply json_reply(int status, const nlohmann::json& body) {
  return HttpReply{status, "application/json", to_json_text(body) + "\n", {}};
}

HttpReply error_reply(int status, const std::string& message) {
  // Messages quote what the client sent (ids, names, values): echoed as valid text.
  return json_reply(status, {{"status", "error"}, {"error", to_valid_utf8(message)}});
}

std::shared_ptr<DeliveryQueue> make_queue(const std::string& data_dir, const std::string& receiver) {
  return std::make_shared<DeliveryQueue>(data_dir.empty() ? "" : data_dir + "/alert-queue/" + receiver);
}

}  // namespace

AlertingService::AlertingService(AlertingOptions options, std::function<std::int64_t()> now)
    : options_(std::move(options)), now_(std::move(now)), engine_(options_.engine) {
  for (const auto* url : {&options_.alertmanager_url, &options_.webhook_url}) {
    std::string error;
    if (!url->empty() && !net::parse_url(*url, &error)) throw std::runtime_error(error);
  }
  if (options_.data_dir.empty() && (!options_.alertmanager_url.empty() || !options_.webhook_url.empty())) {
    spdlog::warn("alerts: no data_dir: alerts waiting for delivery are lost if the agent restarts");
  }
  silences_ = std::make_shared<SilenceStore>(
      options_.data_dir.empty() ? "" : options_.data_dir + "/silences.json", options_.config_silences);
  std::shared_ptr<DeliveryQueue> am, hook;
  if (!options_.alertmanager_url.empty()) {
    am = make_queue(options_.data_dir, "alertmanager");
    workers_.push_back(std::make_unique<DeliveryWorker>(
        make_alertmanager_receiver(options_.alertmanager_url, options_.tls_ca_file), am, options_.retry));
  }
  if (!options_.webhook_url.empty()) {
    hook = make_queue(options_.data_dir, "webhook");
    workers_.push_back(
        std::make_unique<DeliveryWorker>(make_webhook_receiver(options_.webhook_url, options_.group_by,
                                                               options_.external_url, options_.tls_ca_file),
                                         hook, options_.retry));
  }
  RouterOptions router{options_.resend_interval,
                       options_.external_url.empty() ? "" : options_.external_url + "/api/v1/alerts"};
  router_ = std::make_unique<AlertRouter>(router, am, hook, silences_);
  if (!options_.data_dir.empty()) {
    state_path_ = options_.data_dir + "/alerts.json";
    std::string error;
    to_restore_ = read_alert_state(state_path_, error);
    if (!error.empty()) spdlog::error("alerts: starting without the alerts of the previous run: {}", error);
  }
}

void AlertingService::restore_saved_alerts(std::int64_t now_ms) {
  if (!to_restore_ || to_restore_->alerts.empty()) return;
  const std::size_t kept = engine_.restore(to_restore_->alerts, now_ms);
  std::map<std::uint64_t, AlertState> notified;
  for (const Alert& a : engine_.alerts()) {
    if (const auto it = to_restore_->webhook_notified.find(a.fingerprint);
        it != to_restore_->webhook_notified.end())
      notified.insert(*it);
  }
  router_->restore_webhook_notified(std::move(notified));
  spdlog::info("alerts: took back {} of the {} alerts saved at {} ms ({} ms ago)", kept,
               to_restore_->alerts.size(), to_restore_->saved_at_ms, now_ms - to_restore_->saved_at_ms);
}

void AlertingService::save_alerts(std::vector<Alert> alerts, std::int64_t now_ms) {
  if (state_path_.empty()) return;
  SavedAlerts state{std::move(alerts), router_->webhook_notified(), now_ms};
  std::string key = lifecycle_key(state);
  // Unchanged lifecycles are saved again now and then, so that the time each alert was last seen holding
  // (what restore_grace is counted from) is at most this old in the file.
  constexpr std::int64_t kRefreshMs = 60'000;
  if (key == saved_key_ && (state.alerts.empty() || now_ms - saved_at_ms_ < kRefreshMs)) return;
  if (auto error = write_file_durably(state_path_, alert_state_json(state)); !error.empty()) {
    // Costs only the restart's memory of the alerts; the next change tries again.
    spdlog::error("alerts: cannot save the alerts' state: {}", error);
    return;
  }
  saved_key_ = std::move(key);
  saved_at_ms_ = now_ms;
}

AlertingService::~AlertingService() = default;

bool AlertingService::silenced(const LabelSet& labels, std::int64_t now_ms) const {
  LabelSet alert = options_.engine.extra_labels;
  if (!options_.engine.hostname.empty()) alert["hostname"] = options_.engine.hostname;
  for (const auto& [name, value] : labels) alert[name] = value;
  return silences_->silenced(alert, now_ms);
}

void AlertingService::evaluate(std::span<const Condition> conditions, std::int64_t now_ms) {
  const auto start = std::chrono::steady_clock::now();
  if (to_restore_) {
    restore_saved_alerts(now_ms);
    to_restore_.reset();
  }
  const auto changed = engine_.evaluate(conditions, now_ms);
  auto alerts = engine_.alerts();  // one copy, taken under the engine's lock, for the router and the file
  router_->route(alerts, changed, now_ms);
  save_alerts(std::move(alerts), now_ms);
  std::lock_guard lock(evaluated_mu_);
  last_evaluation_ms_ = now_ms;
  evaluation_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

HttpReply AlertingService::list_rules(const HttpRequest& req) const {
  RulesContext context{options_.engine.runbook_url_prefix, options_.evaluation_interval, 0, 0};
  {
    std::lock_guard lock(evaluated_mu_);
    context.last_evaluation_ms = last_evaluation_ms_;
    context.evaluation_seconds = evaluation_seconds_;
  }
  return json_reply(200, {{"status", "success"},
                          {"data", prometheus_rules(options_.rule_groups, engine_.alerts(), context, req)}});
}

AlertFamilies AlertingService::families() const {
  std::vector<ReceiverCounters> receivers;
  for (const auto& w : workers_) receivers.push_back({w->receiver_name(), w->counters()});
  AlertFamilies out = alert_families(engine_.alerts(), receivers);
  out.families.push_back(silence_family(options_.config_silence_errors, silences_->load_errors()));
  return out;
}

void AlertingService::append_metrics(std::string& out, ExpositionFormat format) const {
  std::vector<ReceiverCounters> receivers;
  for (const auto& w : workers_) receivers.push_back({w->receiver_name(), w->counters()});
  const auto alerts = engine_.alerts();
  append_alert_metrics(out, format, alerts, receivers);
  append_family(out, silence_family(options_.config_silence_errors, silences_->load_errors()), format);
}

HttpReply AlertingService::list_alerts() const {
  const auto all = engine_.alerts();
  const std::int64_t now = now_();
  nlohmann::json list = nlohmann::json::array();
  for (const Alert& a : all) {
    if (!a.active()) continue;
    auto j = prometheus_alert(a);
    j["fingerprint"] = fingerprint_hex(a.fingerprint);
    j["muted"] = router_->muted(a, all, now);
    list.push_back(std::move(j));
  }
  return json_reply(200, {{"status", "success"}, {"data", {{"alerts", list}}}});
}

HttpReply AlertingService::list_silences() const {
  nlohmann::json list = nlohmann::json::array();
  const std::int64_t now = now_();
  for (const auto& s : silences_->list()) list.push_back(silence_json(s, now));
  return json_reply(200, {{"status", "success"}, {"data", list}});
}

std::optional<HttpReply> AlertingService::refuse_without_token(const HttpRequest& req) const {
  if (options_.api_token.empty()) {
    if (!options_.api_token_error.empty())
      return error_reply(403, "silences cannot be changed: " + options_.api_token_error);
    return error_reply(403, "silences cannot be changed: no API token is configured (set api_token_file)");
  }
  const std::string auth = req.header("Authorization");
  const std::optional<std::string_view> token = bearer_token(auth);
  if (!token) {
    HttpReply r = error_reply(401, "missing bearer token: send 'Authorization: Bearer <token>'");
    r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"gpuwatch\"");
    return r;
  }
  if (!constant_time_equal(*token, options_.api_token)) return error_reply(403, "wrong bearer token");
  return std::nullopt;
}

std::optional<HttpReply> AlertingService::refuse_mutation(const HttpRequest& req) const {
  // A user the listener verified against the web configuration file's bcrypt hashes holds a credential too
  // (its Authorization header carries the password, so it cannot carry a bearer token as well).
  if (req.user.empty()) {
    if (auto refused = refuse_without_token(req)) return refused;
  }
  if (!options_.alertmanager_url.empty()) {
    return error_reply(409, "an Alertmanager is configured (" + options_.alertmanager_url +
                                ") and does the silencing: add the silence there (amtool silence add ...)");
  }
  return std::nullopt;
}

HttpReply AlertingService::add_silence(const HttpRequest& req) {
  if (auto refused = refuse_mutation(req)) return *refused;
  nlohmann::json body;
  try {
    body = nlohmann::json::parse(req.body);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann says where and quotes the last bytes read, which may be any bytes: error_reply makes them
    // valid.
    const std::string what = e.what();
    const auto at = what.find("parse error");
    return error_reply(400, "the body is not JSON: " + (at == std::string::npos ? what : what.substr(at)));
  }
  std::string error;
  auto silence = parse_silence(body, error);
  if (!silence) return error_reply(400, error);
  const std::string id = silences_->add(std::move(*silence));
  spdlog::info("alerts: silence {} added from {}", id, req.remote_addr);
  return json_reply(200, {{"status", "success"}, {"data", {{"silenceID", id}}}});
}

HttpReply AlertingService::delete_silence(const HttpRequest& req) {
  if (auto refused = refuse_mutation(req)) return *refused;
  const std::string& id = req.captures.at(0);
  if (!silences_->remove(id)) return error_reply(404, "no silence '" + id + "' made through the API");
  spdlog::info("alerts: silence {} deleted from {}", id, req.remote_addr);
  return json_reply(200, {{"status", "success"}});
}

HttpReply AlertingService::runbook(const HttpRequest& req) const {
  const std::string& name = req.captures.at(0);
  // A folder the user gives holds their own runbooks; an alert it has none for keeps gpuwatch's.
  std::optional<std::string> text;
  if (!options_.runbook_dir.empty()) text = read_file(options_.runbook_dir + "/" + name + ".md");
  if (!text) {
    if (auto builtin = builtin_runbook(name)) text = std::string(*builtin);
  }
  if (!text) return error_reply(404, "no runbook for alert '" + name + "'");
  return HttpReply{200, "text/markdown; charset=utf-8", std::move(*text), {}};
}

std::vector<HttpRoute> AlertingService::routes() {
  // Mutations are refused before their body is read; a silence is a few hundred bytes.
  constexpr std::size_t kMaxSilenceBytes = 64 * 1024;
  HttpRoute silences{
      {"GET", "POST"},
      "/api/v1/silences",
      "silences (POST one with a bearer token)",
      [this](const HttpRequest& req) { return req.method == "POST" ? add_silence(req) : list_silences(); },
      [this](const HttpRequest& req) {
        return req.method == "POST" ? refuse_mutation(req) : std::optional<HttpReply>();
      },
      kMaxSilenceBytes};
  HttpRoute delete_one{{"DELETE"},
                       "/api/v1/silence/([A-Za-z0-9_-]+)",
                       "",
                       [this](const HttpRequest& req) { return delete_silence(req); },
                       [this](const HttpRequest& req) { return refuse_mutation(req); },
                       kMaxSilenceBytes};
  return {
      {{"GET"},
       "/api/v1/alerts",
       "pending and firing alerts (Prometheus's format)",
       [this](const HttpRequest&) { return list_alerts(); }},
      {{"GET"},
       "/api/v1/rules",
       "alerting rules: the detectors and their alerts (Prometheus's format)",
       [this](const HttpRequest& req) { return list_rules(req); }},
      std::move(silences),
      std::move(delete_one),
      {{"GET"}, "/runbooks/([A-Za-z0-9_]+)", "", [this](const HttpRequest& req) { return runbook(req); }},
  };
}

}  // namespace gpuwatch::alerting
