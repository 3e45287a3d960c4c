#include "agent/agent.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <utility>

#include "agent/accounting_sink.h"
#include "agent/alerting_setup.h"
#include "agent/cost_api.h"
#include "agent/detection_sink.h"
#include "agent/external_url.h"
#include "agent/history_sink.h"
#include "agent/maintenance.h"
#include "agent/published_families.h"
#include "agent/query_setup.h"
#include "agent/remote_write_sink.h"
#include "agent/running_collector.h"
#include "agent/sink_set.h"
#include "agent/status_api.h"
#include "alerting/alerting_service.h"
#include "detect/detection.h"
#include "http/http_server.h"
#include "http/web_config.h"
#include "http/web_ui.h"
#include "scrape/scraper.h"
#include "slo/slo_api.h"
#include "slo/slo_sink.h"
#include "slo/spec_files.h"
#include "store/snapshot_history.h"

namespace gpuwatch {

// The running collector, shared with the server's and the alert engine's callbacks so they never point into
// an Agent that is gone.
struct Agent::CurrentCollector {
  std::atomic<std::shared_ptr<RunningCollector>> running;

  SnapshotPtr latest() const {
    const auto r = running.load();
    return r ? r->collector()->latest() : nullptr;
  }
  bool ready() const {
    const auto r = running.load();
    return r && r->collector()->ready();
  }
};

namespace {

bool collection_settings_changed(const AgentOptions& a, const AgentOptions& b) {
  return a.interval != b.interval || effective_deadline(a) != effective_deadline(b) ||
         a.hostname != b.hostname;
}

// The remote_write: list is no row of the option table: said apart, as the table's rows are.
std::string receivers_of(const AgentOptions& o) {
  std::string out;
  for (const auto& t : o.remote_write) out += (out.empty() ? "" : ", ") + t.name + "=" + t.url;
  return out;
}

void warn_about_restart_only_changes(const AgentOptions& before, const AgentOptions& after) {
  if (receivers_of(before) != receivers_of(after))
    spdlog::warn("reload: the remote_write list changed; it takes effect after a restart");
  for (const auto& spec : option_table()) {
    if (!spec.reloadable && spec.show(before) != spec.show(after)) {
      spdlog::warn("reload: '{}' changed from '{}' to '{}'; it takes effect after a restart", spec.key,
                   spec.show(before), spec.show(after));
    }
  }
}

HttpServerOptions server_options(const AgentOptions& options,
                                 const std::shared_ptr<alerting::AlertingService>& alerts,
                                 const std::shared_ptr<const AgentStatus>& status, const QuerySetup& query,
                                 std::vector<HttpRoute> extra_routes) {
  HttpServerOptions so;
  so.routes = alerts->routes();
  for (auto& route : extra_routes) so.routes.push_back(std::move(route));
  for (auto& route : status_routes(status)) so.routes.push_back(std::move(route));
  // The Prometheus query API: over the history store (503 with the reason while it cannot open), or the
  // latest snapshot when the store is off.
  for (auto& route : query_api_routes(options, query)) so.routes.push_back(std::move(route));
  // The web dashboards at /, reading only the routes above.
  for (auto& route : web_ui_routes()) so.routes.push_back(std::move(route));
  for (auto& route : cost_routes(query.history)) so.routes.push_back(std::move(route));
  // After the snapshot's families, what the agent's parts publish: the same list the history stores.
  so.extra_metrics = [published = query.published](std::string& out, ExpositionFormat f) {
    published->append(out, f);
  };
  so.listen = options.listen;
  so.naming = options.naming;
  so.dcgm_hostname_label = options.dcgm_hostname_label;
  so.health_settings = options.detectors;  // /api/v1/gpus judges health by the detectors' settings
  so.header_timeout = options.http_header_timeout;
  so.body_timeout = options.http_body_timeout;
  so.idle_timeout = options.http_idle_timeout;
  // The option table bounds the counts well inside unsigned.
  so.max_connections = static_cast<unsigned>(options.http_max_connections);
  so.max_connections_per_client = static_cast<unsigned>(options.http_max_connections_per_client);
  so.max_reply_bytes = options.http_max_reply_size;
  so.threads = static_cast<unsigned>(options.http_workers);
  so.queue = options.http_queue;
  if (!options.web_config_file.empty()) {
    // A listener asked to be private never starts open: a mistake in the file stops the agent.
    std::vector<std::string> errors;
    so.web = load_web_config(options.web_config_file, errors);
    if (!so.web) {
      std::string all;
      for (const auto& e : errors) all += (all.empty() ? "" : "; ") + e;
      throw AgentSetupError("web configuration: " + all);
    }
  }
  return so;
}

// The SLOs of the files named (comma-separated); a bad file stops the agent with its file:line.
std::vector<slo::SloSpec> load_slos(const std::string& files) {
  std::vector<slo::SloSpec> out;
  std::size_t start = 0;
  while (start < files.size()) {
    const auto comma = files.find(',', start);
    const std::string file =
        files.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? files.size() : comma + 1;
    if (file.empty()) continue;
    try {
      for (auto& s : slo::load_slo_file(file)) out.push_back(std::move(s));
    } catch (const slo::SpecError& e) {
      throw AgentSetupError(std::string("slo: ") + e.what());
    }
  }
  return out;
}

}  // namespace

Agent::Agent(AgentOptions options, std::vector<std::shared_ptr<SnapshotSink>> extra_sinks)
    : options_(std::move(options)),
      listener_(std::make_unique<BoundListener>(HttpServer::bind(options_.listen))),
      port_(listener_->address.port),
      address_(format_listen_address(listener_->address)),
      external_url_(options_.external_url.empty()
                        ? default_external_url(listener_->address, options_.hostname)
                        : options_.external_url),
      current_(std::make_shared<CurrentCollector>()) {
  // The alert engine's clock is the collector's (the wall clock, or a lockstep simulator's).
  std::string error;
  alerts_ = make_alerting(
      options_, external_url_,
      [current = current_] {
        const auto latest = current->latest();
        return latest ? latest->timestamp_ms : 0;
      },
      error);
  if (!alerts_) throw AgentSetupError("alerting: " + error);
  history_ = open_history(options_);
  if (!options_.scrape.empty()) {
    try {
      scraper_ = std::make_shared<scrape::Scraper>(options_.scrape, options_.proc_root);
    } catch (const std::invalid_argument& e) {
      throw AgentSetupError(std::string("scrape: ") + e.what());
    }
    spdlog::info("scraping {} target(s){}", options_.scrape.targets.size(),
                 options_.scrape.discovery.enabled ? " and the services discovered on the GPUs" : "");
  }
  detection_ =
      std::make_shared<detect::Detection>(detect::DetectionOptions{options_.detectors, options_.accounting});

  auto published = std::make_shared<PublishedState>(alerts_, history_);
  std::vector<std::shared_ptr<SnapshotSink>> sinks;
  if (history_) sinks.push_back(std::make_shared<HistorySink>(history_, published));
  std::shared_ptr<slo::SloConditions> slo_conditions;
  std::vector<HttpRoute> slo_routes;
  if (!options_.slo_files.empty()) {
    slos_ = std::make_shared<slo::SloEngine>(load_slos(options_.slo_files));
    slo_conditions = std::make_shared<slo::SloConditions>();
    sinks.push_back(std::make_shared<slo::SloSink>(
        slos_, slo_conditions, [alerts = alerts_] { return alerts->alerts(); }, history_));
    slo_routes.push_back(slo::slos_route(slos_));
    spdlog::info("evaluating {} SLO(s) from {}", slos_->specs().size(), options_.slo_files);
  }
  sinks.push_back(std::make_shared<DetectionSink>(detection_, alerts_, slo_conditions));
  accounting_ = std::make_shared<AccountingSink>(
      accounting::LedgerOptions{options_.accounting, options_.accounting_max_workloads,
                                options_.accounting_workload_expiry, silenced_gpus(alerts_)},
      history_);
  sinks.push_back(accounting_);
  published->set_accounting([accounting = std::weak_ptr<AccountingSink>(accounting_)] {
    const auto alive = accounting.lock();
    return alive ? alive->counters() : std::vector<Family>{};
  });
  if (const auto targets = remote_write_targets(options_); !targets.empty()) {
    try {
      // The labels the agent's query API gives its series: a receiver holds the same series.
      const Labels target{{"instance", reachable_address(listener_->address, options_.hostname)},
                          {"job", std::string(kQueryJob)}};
      sinks.push_back(std::make_shared<RemoteWriteSink>(targets, options_.data_dir + "/remote-write",
                                                        published, target,
                                                        options_.store_max_process_series));
    } catch (const std::exception& e) {
      // A failing part degrades only itself: the agent samples, stores and alerts without remote write.
      spdlog::error("remote write is off: {}", e.what());
    }
  }
  for (auto& sink : extra_sinks) sinks.push_back(std::move(sink));
  sinks_ = std::make_shared<SinkSet>(sinks);
  published->set_sinks(sinks_);

  auto current = current_;
  status_ = std::make_shared<AgentStatus>(options_);
  const QuerySetup query{history_, published, [current] { return current->latest(); },
                         reachable_address(listener_->address, options_.hostname)};
  server_ = std::make_shared<HttpServer>(
      server_options(options_, alerts_, status_, query, std::move(slo_routes)),
      [current] { return current->latest(); }, [current] { return current->ready(); });
  // Weakly: a sink left stuck past the agent's end may still ask, and then finds no server rather than a
  // dangling one.
  published->set_server_families([server = std::weak_ptr<HttpServer>(server_)] {
    const auto alive = server.lock();
    return alive ? alive->self_families() : std::vector<Family>{};
  });
  published_ = published;
}

Agent::~Agent() {
  stop();
}

namespace {

SnapshotCallback publish_to(const std::shared_ptr<SinkSet>& sinks) {
  return [sinks](const SnapshotPtr& s) { sinks->publish(s); };
}

ScrapeSource scrapes_of(const std::shared_ptr<scrape::Scraper>& scraper) {
  if (!scraper) return {};
  return
      [scraper](std::int64_t now_ms, const Snapshot& snapshot, std::chrono::steady_clock::time_point wait) {
        return scraper->collect(now_ms, snapshot, wait);
      };
}

}  // namespace

void Agent::start() {
  if (!listener_) throw std::logic_error("Agent::start called twice");
  started_ = true;
  current_->running.store(
      std::make_shared<RunningCollector>(options_, publish_to(sinks_), nullptr, scrapes_of(scraper_)));
  auto listener = std::move(listener_);
  server_->start(std::move(*listener));
}

void Agent::reload(AgentOptions reloaded) {
  warn_about_restart_only_changes(options_, reloaded);
  spdlog::set_level(spdlog::level::from_str(reloaded.log_level));
  accounting_->set_settings(reloaded.accounting);
  server_->set_naming(reloaded.naming);
  // Restart-only settings keep their running values: every option the table marks not reloadable.
  for (const auto& spec : option_table()) {
    if (!spec.reloadable) spec.apply(reloaded, spec.show(options_));
  }
  // The scrape section too: its targets keep their state (staleness) across a reload. A reloaded file without
  // one is no change when the running section came from the scenario.
  if (!reloaded.scrape.empty() && !(reloaded.scrape == options_.scrape)) {
    spdlog::warn("reload: the 'scrape' section changed; it takes effect after a restart");
  }
  reloaded.scrape = options_.scrape;
  reloaded.remote_write = options_.remote_write;
  if (started_ && !stopped_ && collection_settings_changed(options_, reloaded)) {
    // The old collector stops first, so that the new one carries on from its last reading (the kernel log's
    // position, events and counts) and no record is read by both.
    const auto old = current_->running.load();
    if (old && !old->stop()) clean_ = false;
    const SnapshotPtr last = old ? old->collector()->latest() : nullptr;
    current_->running.store(
        std::make_shared<RunningCollector>(reloaded, publish_to(sinks_), last, scrapes_of(scraper_)));
  }
  options_ = std::move(reloaded);
  status_->reloaded(options_);
}

bool Agent::stop() {
  if (!started_ || stopped_) return clean_;
  stopped_ = true;
  server_->stop();
  if (const auto running = current_->running.load()) clean_ = running->stop();
  // After the collector: nothing more is published, and each sink finishes what is queued.
  const bool sinks_done = sinks_->stop();
  clean_ = clean_ && sinks_done;
  if (history_ && sinks_done) {
    history_->commit();  // logs a failure
  } else if (history_) {
    spdlog::warn("history store: a sink is stuck; skipping the last sync (the write-ahead log has the rest)");
  }
  return clean_;
}

SnapshotPtr Agent::latest() const {
  return current_->latest();
}

std::vector<SinkStats> Agent::sink_stats() const {
  return sinks_->stats();
}

}  // namespace gpuwatch
