#include "scrape/scrape_target.h"

#include <stdexcept>

namespace gpuwatch::scrape {

std::string instance_of(const std::string& url) {
  constexpr std::string_view kScheme = "http://";
  std::string rest = url.rfind(kScheme, 0) == 0 ? url.substr(kScheme.size()) : url;
  rest = rest.substr(0, rest.find('/'));
  if (rest.find(':', rest.empty() || rest[0] != '[' ? 0 : rest.find(']')) == std::string::npos) rest += ":80";
  return rest;
}

ScrapeTarget make_target(ScrapeTargetConfig config, const Labels& extra) {
  ScrapeTarget t;
  Labels labels;
  labels.emplace_back("job", config.job);
  labels.emplace_back("instance", instance_of(config.url));
  for (const auto& [name, value] : config.labels) labels.emplace_back(name, value);
  for (const auto& [name, value] : extra) labels.emplace_back(name, value);
  // A later label of the same name wins (the configured ones over job and instance).
  Labels unique;
  for (auto it = labels.rbegin(); it != labels.rend(); ++it) {
    bool seen = false;
    for (const auto& u : unique) seen = seen || u.first == it->first;
    if (!seen) unique.push_back(*it);
  }
  if (std::string problem = normalize_labels(unique); !problem.empty()) {
    throw std::invalid_argument("scrape target " + config.url + ": " + problem);
  }
  t.key = config.url + labels_to_string(unique);
  t.labels = std::move(unique);
  t.config = std::move(config);
  return t;
}

}  // namespace gpuwatch::scrape
