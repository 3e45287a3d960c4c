#include "config/scrape_section.h"

#include <filesystem>
#include <initializer_list>
#include <string_view>

#include "config/size.h"
#include "config/yaml_duplicate_keys.h"
#include "core/duration.h"
#include "core/file_io.h"
#include "core/spelling.h"

namespace gpuwatch {
namespace {

class SectionReader {
 public:
  SectionReader(const std::string& file, std::vector<ConfigError>& errors) : file_(file), errors_(errors) {}

  void fail(const YAML::Node& at, std::string message) {
    const YAML::Mark mark = at.Mark();
    errors_.push_back(ConfigError{file_, mark.line >= 0 ? mark.line + 1 : 1,
                                  mark.column >= 0 ? mark.column + 1 : 1, std::move(message)});
  }

  // A map whose keys are all among `keys`; false (reported) when it is not a map.
  bool map(const YAML::Node& node, std::string_view what, std::initializer_list<std::string_view> keys) {
    if (!node.IsMap()) {
      fail(node, "expected " + std::string(what) + " as a mapping (key: value)");
      return false;
    }
    const std::vector<std::string_view> known(keys);
    for (const auto& e : node) {
      const std::string key = e.first.as<std::string>("");
      bool found = false;
      for (const auto k : known) found = found || k == key;
      if (found) continue;
      std::string message = "unknown key '" + key + "' in " + std::string(what);
      if (const std::string hint = closest_match(key, known); !hint.empty()) {
        message += " (did you mean '" + hint + "'?)";
      }
      fail(e.first, message);
    }
    return true;
  }

  bool scalar(const YAML::Node& v, std::string_view key, std::string& out) {
    if (!v.IsScalar()) {
      fail(v, "'" + std::string(key) + "' expects a single value");
      return false;
    }
    out = v.Scalar();
    return true;
  }

  void duration(const YAML::Node& v, std::string_view key, std::chrono::milliseconds& out) {
    std::string s;
    if (!scalar(v, key, s)) return;
    const auto d = parse_duration(s);
    if (!d || d->count() <= 0)
      return fail(v, "'" + std::string(key) + "': expected a duration like 15s, got '" + s + "'");
    out = *d;
  }

  void count(const YAML::Node& v, std::string_view key, std::size_t& out) {
    std::string s;
    if (!scalar(v, key, s)) return;
    std::size_t used = 0;
    unsigned long long n = 0;
    try {
      n = std::stoull(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != s.size() || s[0] == '-') {
      return fail(v, "'" + std::string(key) + "': expected a whole number (0 = no limit), got '" + s + "'");
    }
    out = static_cast<std::size_t>(n);
  }

  void size(const YAML::Node& v, std::string_view key, std::uint64_t& out) {
    std::string s;
    if (!scalar(v, key, s)) return;
    const auto n = parse_size(s);
    if (!n)
      return fail(v,
                  "'" + std::string(key) + "': expected a size like 16MiB (0 = no limit), got '" + s + "'");
    out = *n;
  }

  void flag(const YAML::Node& v, std::string_view key, bool& out) {
    std::string s;
    if (!scalar(v, key, s)) return;
    if (s == "true") {
      out = true;
    } else if (s == "false") {
      out = false;
    } else {
      fail(v, "'" + std::string(key) + "': expected true or false, got '" + s + "'");
    }
  }

  void labels(const YAML::Node& v, std::vector<std::pair<std::string, std::string>>& out) {
    if (!v.IsMap()) return fail(v, "'labels' expects a mapping of label names to values");
    out.clear();
    for (const auto& e : v) {
      const std::string name = e.first.as<std::string>("");
      bool valid = !name.empty() && !(name[0] >= '0' && name[0] <= '9') && name.rfind("__", 0) != 0;
      for (const char c : name) {
        valid =
            valid && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_');
      }
      if (!valid) {
        fail(e.first,
             "invalid label name '" + name + "' (letters, digits and '_', not starting with a digit or __)");
        continue;
      }
      std::string value;
      if (scalar(e.second, name, value)) out.emplace_back(name, value);
    }
  }

  // A target's own settings (every key but url and job, which only a listed target has).
  bool setting(const std::string& key, const YAML::Node& v, ScrapeTargetConfig& t) {
    if (key == "interval")
      duration(v, key, t.interval);
    else if (key == "timeout")
      duration(v, key, t.timeout);
    else if (key == "labels")
      labels(v, t.labels);
    else if (key == "sample_limit")
      count(v, key, t.sample_limit);
    else if (key == "label_limit")
      count(v, key, t.label_limit);
    else if (key == "label_name_length_limit")
      count(v, key, t.label_name_length_limit);
    else if (key == "label_value_length_limit")
      count(v, key, t.label_value_length_limit);
    else if (key == "body_size_limit")
      size(v, key, t.body_size_limit);
    else if (key == "honor_timestamps")
      flag(v, key, t.honor_timestamps);
    else if (key == "honor_labels")
      flag(v, key, t.honor_labels);
    else
      return false;
    return true;
  }

 private:
  const std::string& file_;
  std::vector<ConfigError>& errors_;
};

#define GPUWATCH_TARGET_SETTINGS                                                             \
  "interval", "timeout", "labels", "sample_limit", "label_limit", "label_name_length_limit", \
      "label_value_length_limit", "body_size_limit", "honor_timestamps", "honor_labels"

// Prometheus's rule: a timeout nobody set is at most the interval; one that was set must fit in it.
bool timeout_given(const YAML::Node& node) {
  return node.IsMap() && node["timeout"];
}
void fit_timeout(ScrapeTargetConfig& t, bool given) {
  if (!given && t.timeout > t.interval) t.timeout = t.interval;
}

bool valid_url(const std::string& url) {
  return url.rfind("http://", 0) == 0 && url.size() > 7;
}

}  // namespace

void read_scrape_section(const YAML::Node& node, const std::string& file, ScrapeConfig& out,
                         std::vector<ConfigError>& errors) {
  SectionReader in(file, errors);
  out = ScrapeConfig{};
  if (!in.map(node, "'scrape'", {"targets", "discovery", GPUWATCH_TARGET_SETTINGS})) return;
  // The section's own settings are every target's defaults: read them first, whatever the key order.
  ScrapeTargetConfig defaults;
  for (const auto& e : node) {
    const std::string key = e.first.as<std::string>("");
    if (key != "targets" && key != "discovery") in.setting(key, e.second, defaults);
  }
  const bool default_timeout_given = timeout_given(node);
  fit_timeout(defaults, default_timeout_given);
  out.discovery.target.interval = defaults.interval;
  out.discovery.target.timeout = defaults.timeout;
  for (const auto& e : node) {
    const std::string key = e.first.as<std::string>("");
    if (key == "targets") {
      if (!e.second.IsSequence()) {
        in.fail(e.second, "'targets' expects a list of targets ({job: ..., url: http://...})");
        continue;
      }
      for (const auto& item : e.second) {
        if (!in.map(item, "a scrape target", {"job", "url", GPUWATCH_TARGET_SETTINGS})) continue;
        ScrapeTargetConfig t = defaults;
        for (const auto& f : item) {
          const std::string k = f.first.as<std::string>("");
          if (k == "job") {
            in.scalar(f.second, k, t.job);
          } else if (k == "url") {
            in.scalar(f.second, k, t.url);
            if (!valid_url(t.url))
              in.fail(f.second, "'url': expected http://host:port/path, got '" + t.url + "'");
          } else {
            in.setting(k, f.second, t);
          }
        }
        fit_timeout(t, default_timeout_given || timeout_given(item));
        if (t.url.empty()) in.fail(item, "a scrape target needs a 'url' (http://host:port/metrics)");
        if (t.job.empty()) in.fail(item, "a scrape target needs a 'job' (the job label of its series)");
        if (t.timeout > t.interval) in.fail(item, "the target's timeout is longer than its interval");
        out.targets.push_back(std::move(t));
      }
    } else if (key == "discovery") {
      const YAML::Node& d = e.second;
      if (!in.map(d, "'discovery'", {"enabled", "path", "job", GPUWATCH_TARGET_SETTINGS})) continue;
      ScrapeTargetConfig t = defaults;
      t.job = out.discovery.target.job;
      for (const auto& f : d) {
        const std::string k = f.first.as<std::string>("");
        if (k == "enabled") {
          in.flag(f.second, k, out.discovery.enabled);
        } else if (k == "path") {
          in.scalar(f.second, k, out.discovery.path);
          if (out.discovery.path.empty() || out.discovery.path[0] != '/') {
            in.fail(f.second, "'path': expected a path starting with '/', got '" + out.discovery.path + "'");
          }
        } else if (k == "job") {
          in.scalar(f.second, k, t.job);
        } else {
          in.setting(k, f.second, t);
        }
      }
      fit_timeout(t, default_timeout_given || timeout_given(d));
      if (t.timeout > t.interval) in.fail(d, "the discovered targets' timeout is longer than their interval");
      out.discovery.target = std::move(t);
    }
  }
  if (defaults.timeout > defaults.interval) in.fail(node, "'timeout' is longer than 'interval'");
}

std::vector<ConfigError> apply_scenario_settings(const std::string& scenario_path, AgentOptions& options) {
  std::vector<ConfigError> errors;
  const auto text = read_file(scenario_path);
  if (!text) {
    errors.push_back({scenario_path, 0, 0, "cannot open the scenario file"});
    return errors;
  }
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    return errors;  // the simulator reports the scenario's own syntax errors
  }
  if (!root.IsMap() || !root["gpuwatch"]) return errors;
  const YAML::Node section = root["gpuwatch"];
  SectionReader in(scenario_path, errors);
  if (!in.map(section, "'gpuwatch'", {"scrape", "slo_files"})) return errors;
  // Each setting of the section gives way to the same setting of the config file.
  if (section["scrape"] && options.scrape.empty())
    read_scrape_section(section["scrape"], scenario_path, options.scrape, errors);
  if (const YAML::Node files = section["slo_files"]; files && options.slo_files.empty()) {
    // Sloth or OpenSLO files beside the scenario (relative to its folder), added to the agent's slo_files.
    if (!files.IsSequence()) in.fail(files, "'slo_files': expected a list of SLO files");
    const auto folder = std::filesystem::path(scenario_path).parent_path();
    for (const auto& f : files.IsSequence() ? files : YAML::Node()) {
      if (!f.IsScalar() || f.Scalar().empty()) {
        in.fail(f, "'slo_files': expected a file name");
        continue;
      }
      const std::string path = (folder / f.Scalar()).string();
      if (!read_file(path)) {
        in.fail(f, "cannot read the SLO file " + path);
        continue;
      }
      options.slo_files += (options.slo_files.empty() ? "" : ",") + path;
    }
  }
  return errors;
}

}  // namespace gpuwatch
