#include "alerting/silences.h"

#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <spdlog/spdlog.h>

#include "alerting/alert_json.h"
#include "alerting/silences_file.h"
#include "core/file_io.h"
#include "core/json_text.h"
#include "core/rfc3339.h"

namespace gpuwatch::alerting {

Matcher silence_matcher(std::string name, std::string value, bool is_regex, bool is_equal) {
  using Op = Matcher::Op;
  const Op op =
      is_regex ? (is_equal ? Op::kRegexMatch : Op::kRegexNoMatch) : (is_equal ? Op::kEqual : Op::kNotEqual);
  return Matcher(std::move(name), op, std::move(value));
}

bool Silence::selects(const LabelSet& labels) const {
  return !matchers.empty() && matches_all(matchers, labels);
}

std::optional<Silence> parse_silence(const nlohmann::json& j, std::string& error) {
  if (!j.is_object()) {
    error = "the body must be a JSON object {matchers, startsAt, endsAt, createdBy, comment}";
    return std::nullopt;
  }
  Silence s;
  if (!j.contains("matchers") || !j["matchers"].is_array() || j["matchers"].empty()) {
    error = "matchers: expected a non-empty array of {name, value, isRegex, isEqual}";
    return std::nullopt;
  }
  for (std::size_t i = 0; i < j["matchers"].size(); ++i) {
    const auto& m = j["matchers"][i];
    const std::string where = "matchers[" + std::to_string(i) + "]";
    if (!m.is_object() || !m.contains("name") || !m["name"].is_string() || !m.contains("value") ||
        !m["value"].is_string()) {
      error = where + ": expected {\"name\": string, \"value\": string}";
      return std::nullopt;
    }
    bool flags[2] = {false, true};  // isRegex, isEqual (Alertmanager's defaults)
    for (std::size_t f = 0; f < 2; ++f) {
      const char* key = f == 0 ? "isRegex" : "isEqual";
      if (!m.contains(key)) continue;
      if (!m[key].is_boolean()) {
        error = where + "." + key + ": expected true or false, got " + to_json_text(m[key]);
        return std::nullopt;
      }
      flags[f] = m[key].get<bool>();
    }
    try {
      s.matchers.push_back(silence_matcher(m["name"], m["value"], flags[0], flags[1]));
    } catch (const InvalidRegex& e) {
      error = where + ": " + e.what();
      return std::nullopt;
    }
  }
  for (auto [key, field] : {std::pair{"startsAt", &s.starts_at_ms}, {"endsAt", &s.ends_at_ms}}) {
    const auto t = j.contains(key) && j[key].is_string()
                       ? parse_rfc3339_ms(j[key].get_ref<const std::string&>())
                       : std::nullopt;
    if (!t) {
      error = std::string(key) + ": expected an RFC 3339 time such as 2026-12-01T02:00:00Z";
      return std::nullopt;
    }
    *field = *t;
  }
  if (s.ends_at_ms <= s.starts_at_ms) {
    error = "endsAt must be after startsAt";
    return std::nullopt;
  }
  for (auto [key, field] : {std::pair{"createdBy", &s.created_by}, {"comment", &s.comment}}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_string()) {
      error = std::string(key) + ": expected a string, got " + to_json_text(j[key]);
      return std::nullopt;
    }
    *field = j[key].get<std::string>();
  }
  return s;
}

nlohmann::json silence_json(const Silence& s, std::int64_t now_ms) {
  nlohmann::json matchers = nlohmann::json::array();
  for (const auto& m : s.matchers) {
    matchers.push_back({{"name", m.name()},
                        {"value", m.value()},
                        {"isRegex", m.is_regex()},
                        {"isEqual", m.op() == Matcher::Op::kEqual || m.op() == Matcher::Op::kRegexMatch}});
  }
  const char* state = now_ms < s.starts_at_ms ? "pending" : now_ms < s.ends_at_ms ? "active" : "expired";
  return {{"id", s.id},
          {"matchers", matchers},
          {"startsAt", format_rfc3339_ms(s.starts_at_ms)},
          {"endsAt", format_rfc3339_ms(s.ends_at_ms)},
          {"createdBy", s.created_by},
          {"comment", s.comment},
          {"source", s.from_config ? "config" : "api"},
          {"status", {{"state", state}}}};
}

SilenceStore::SilenceStore(std::string path, std::vector<Silence> from_config) : path_(std::move(path)) {
  for (auto& s : from_config) {
    s.from_config = true;
    if (s.id.empty()) s.id = "config-" + std::to_string(next_id_++);
    silences_.push_back(std::move(s));
  }
  if (path_.empty()) return;
  // The saved silences are the agent's own state: a damaged file costs those silences, never the start.
  auto saved = read_silences_file(path_, true, true);
  for (const auto& e : saved.errors) spdlog::error("alerts: {} (starting without it)", e);
  load_errors_ = saved.errors.size();
  if (load_errors_ > 0) {
    // The next save rewrites the file with the silences that loaded: the damaged one is kept aside first.
    std::error_code ec;
    std::filesystem::copy_file(path_, path_ + ".bad", std::filesystem::copy_options::overwrite_existing, ec);
    if (!ec) spdlog::error("alerts: the damaged {} is kept as {}.bad", path_, path_);
  }
  for (auto& s : saved.silences) silences_.push_back(std::move(s));
}

std::string SilenceStore::add(Silence s) {
  std::lock_guard lock(mutex_);
  std::random_device random;
  s.id = fingerprint_hex((static_cast<std::uint64_t>(random()) << 32) ^ random() ^ next_id_++);
  s.from_config = false;
  silences_.push_back(s);
  save();
  return s.id;
}

bool SilenceStore::remove(const std::string& id) {
  std::lock_guard lock(mutex_);
  const auto n = std::erase_if(silences_, [&](const Silence& s) { return s.id == id && !s.from_config; });
  if (n > 0) save();
  return n > 0;
}

std::vector<Silence> SilenceStore::list() const {
  std::lock_guard lock(mutex_);
  return silences_;
}

bool SilenceStore::silenced(const LabelSet& labels, std::int64_t now_ms) const {
  std::lock_guard lock(mutex_);
  for (const auto& s : silences_) {
    if (s.active_at(now_ms) && s.selects(labels)) return true;
  }
  return false;
}

void SilenceStore::save() const {
  if (path_.empty()) return;
  nlohmann::json all = nlohmann::json::array();
  for (const auto& s : silences_) {
    if (!s.from_config) all.push_back(silence_json(s, 0));
  }
  // Durable (file and directory synced), so a power cut after a 200 never loses the silence.
  if (const std::string problem = write_file_durably(path_, to_json_text(all, 1) + "\n"); !problem.empty())
    spdlog::error("cannot save silences: {}", problem);
}

}  // namespace gpuwatch::alerting
