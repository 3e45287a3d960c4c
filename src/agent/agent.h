// The agent: the one owner of the wiring. It builds every part from the options, and the translation from
// options to each part's options happens here and in the *_setup files beside it:
//
//   collector ──► snapshot ──► SinkSet ──► history (store)          each sink: own thread,
//   (NVML and       │                ├─► detection + alerting     own bounded queue
//   host sources)   │                └─► further sinks
//                   └──► HttpServer: /metrics, /api, query API over the store
//
// The CLI only parses flags, waits for signals and calls start(), reload() and stop().
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "agent/sink_runner.h"
#include "agent/snapshot_sink.h"
#include "config/agent_options.h"
#include "core/snapshot.h"

namespace gpuwatch {

class HttpServer;
struct BoundListener;
class SinkSet;
class PublishedState;
class AgentStatus;
class AccountingSink;
namespace alerting {
class AlertingService;
}
namespace detect {
class Detection;
}
namespace store {
class RetryingHistory;
}
namespace slo {
class SloEngine;
}  // namespace slo
namespace scrape {
class Scraper;
}

// The options name something that cannot be used (a token or silences file, the data dir): fix the
// configuration.
class AgentSetupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Agent {
 public:
  // Builds every part and binds the listen address (so that the alerts' links and the log can name the port
  // the system picks for port 0); nothing runs yet. extra_sinks get every snapshot after history and
  // detection. Throws AgentSetupError, or std::runtime_error naming the address when it cannot bind
  // (std::invalid_argument for a malformed one).
  explicit Agent(AgentOptions options, std::vector<std::shared_ptr<SnapshotSink>> extra_sinks = {});
  ~Agent();  // stop()
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // Starts the sinks, collecting (the first tick at once) and serving. Throws std::runtime_error when the
  // server cannot start.
  void start();
  int port() const { return port_; }  // the bound port: the one the system picked for port 0
  // The address served, with the bound port ("127.0.0.1:41234" for a listen of 127.0.0.1:0).
  const std::string& address() const { return address_; }
  // How users reach the agent, as the alerts' links name it: external_url, or the default for the bound
  // address.
  const std::string& external_url() const { return external_url_; }

  // Applies a reloaded configuration: log level, naming, and the collection settings (interval, deadline,
  // hostname: a new collector, the sinks stay). Settings marked restart-only keep their running values, with
  // a warning for each that changed.
  void reload(AgentOptions reloaded);

  // Stops serving, collecting and the sinks (each finishes its queue), then syncs history. Never waits long
  // on a hung driver call or a stuck sink: returns false when a thread had to be left behind, and the caller
  // should then exit without running the loaded libraries' destructors. Safe to call twice.
  bool stop();

  const AgentOptions& options() const { return options_; }
  SnapshotPtr latest() const;  // null before the first tick
  std::vector<SinkStats> sink_stats() const;

 private:
  struct CurrentCollector;

  AgentOptions options_;
  std::unique_ptr<BoundListener> listener_;  // bound at construction, served from start()
  int port_ = 0;
  std::string address_;
  std::string external_url_;
  std::shared_ptr<CurrentCollector> current_;
  std::shared_ptr<alerting::AlertingService> alerts_;
  std::shared_ptr<store::RetryingHistory> history_;
  std::shared_ptr<detect::Detection> detection_;
  std::shared_ptr<AccountingSink> accounting_;  // its counters on /metrics, in the history, /api/v1/cost
  std::shared_ptr<SinkSet> sinks_;
  std::shared_ptr<PublishedState> published_;  // what is served and stored beside the snapshot
  std::shared_ptr<AgentStatus> status_;        // the settings in effect, for the status API
  std::shared_ptr<scrape::Scraper> scraper_;   // null when nothing is scraped
  std::shared_ptr<slo::SloEngine> slos_;       // null when no SLO file is named
  std::shared_ptr<HttpServer> server_;  // held weakly by the history sink's view of the server's families
  bool started_ = false;
  bool stopped_ = false;
  bool clean_ = true;
};

}  // namespace gpuwatch
