// The alert engine's state saved in the data dir, so that an agent killed and started again holds the same
// alerts: each pending, firing and retained resolved alert (labels, annotations, when it became active,
// fired, resolved, was last seen holding, and until when an event alert holds), and which of them the
// webhook was last told about. Written durably at each change of a lifecycle (not at every evaluation: the
// annotations' measured values alone do not rewrite it); read once at start. A torn or corrupt file is an
// error naming the file (and line:column), and the agent starts without restored alerts.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "alerting/alert.h"

namespace gpuwatch::alerting {

struct SavedAlerts {
  std::vector<Alert> alerts;
  std::map<std::uint64_t, AlertState> webhook_notified;  // fingerprint -> last state the webhook was told
  std::int64_t saved_at_ms = 0;
};

// The file's text. Equal lifecycles give equal `lifecycle_key`s: the caller writes only when the key changed.
std::string alert_state_json(const SavedAlerts& state);
std::string lifecycle_key(const SavedAlerts& state);

// Reads the file. A missing file is no state and no error. Otherwise `error` says what is wrong
// ("path:3:14: invalid JSON: ...", "path: alert 2: state: expected pending, firing or resolved") and the
// result is empty: a half-trusted state could resolve or re-fire alerts that were fine.
SavedAlerts read_alert_state(const std::string& path, std::string& error);

}  // namespace gpuwatch::alerting
