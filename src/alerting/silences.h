// Silences for standalone routing (no Alertmanager configured): a silence mutes the notifications of every
// alert its matchers select between its start and end; the alert itself stays listed. Silences come from
// the API (kept in the data dir, so they survive restarts) and from the config's maintenance windows (fixed,
// not deletable through the API). The JSON form is Alertmanager's, so the same body works against both.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "alerting/fingerprint.h"
#include "core/label_matcher.h"

namespace gpuwatch::alerting {

// The agent's one label matcher (core/label_matcher.h): regexes compiled once when the silence is made (RE2,
// anchored, as Alertmanager does), so matching an alert never compiles or backtracks. A missing label matches
// as "" (as in Alertmanager).
using Matcher = gpuwatch::LabelMatcher;
// Alertmanager's {name, value, isRegex, isEqual} as a matcher; throws InvalidRegex.
Matcher silence_matcher(std::string name, std::string value, bool is_regex, bool is_equal);

struct Silence {
  std::string id;
  std::vector<Matcher> matchers;  // all must match
  std::int64_t starts_at_ms = 0;
  std::int64_t ends_at_ms = 0;
  std::string created_by;
  std::string comment;
  bool from_config = false;
  bool active_at(std::int64_t now_ms) const { return starts_at_ms <= now_ms && now_ms < ends_at_ms; }
  bool selects(const LabelSet& labels) const;
};

// Parses Alertmanager's postable silence ({matchers, startsAt, endsAt, createdBy, comment}); on error
// returns nullopt and says what is wrong in `error`.
std::optional<Silence> parse_silence(const nlohmann::json& j, std::string& error);
nlohmann::json silence_json(const Silence& s, std::int64_t now_ms);

class SilenceStore {
 public:
  // path "" keeps API silences in memory only.
  SilenceStore(std::string path, std::vector<Silence> from_config);

  std::string add(Silence s);          // returns the new id
  bool remove(const std::string& id);  // false when unknown or from config
  std::vector<Silence> list() const;
  bool silenced(const LabelSet& labels, std::int64_t now_ms) const;
  // Problems found in the saved silences when the store was made (each left one silence or the file out).
  std::size_t load_errors() const { return load_errors_; }

 private:
  void save() const;  // under mutex_

  std::string path_;
  mutable std::mutex mutex_;
  std::vector<Silence> silences_;
  std::uint64_t next_id_ = 1;
  std::size_t load_errors_ = 0;
};

}  // namespace gpuwatch::alerting
