#include "scrape/target_scraper.h"

#include <chrono>

#include "core/stale_marker.h"
#include "ingest/exposition_parser.h"

namespace gpuwatch::scrape {
namespace {

ingest::InputFormat format_of(const FetchResult& answer) {
  if (answer.content_type.find("application/openmetrics-text") != std::string::npos) {
    return ingest::InputFormat::kOpenMetrics;
  }
  if (answer.content_type.find("text/plain") != std::string::npos) return ingest::InputFormat::kPrometheus;
  return ingest::InputFormat::kAuto;
}

void add_report(ScrapeResult& r, const Labels& target, std::string_view name, double value) {
  ScrapedSample s;
  s.labels = target;
  s.labels.emplace_back("__name__", std::string(name));
  normalize_labels(s.labels);
  s.t_ms = r.t_ms;
  s.value = value;
  r.samples.push_back(std::move(s));
}

}  // namespace

TargetScraper::TargetScraper(ScrapeTarget target, Fetch fetch)
    : target_(std::move(target)), fetch_(fetch ? std::move(fetch) : Fetch(scrape::fetch)) {}

std::shared_ptr<const ScrapeResult> TargetScraper::scrape(std::int64_t t_ms) {
  const auto started = std::chrono::steady_clock::now();
  const FetchResult answer =
      fetch_(FetchRequest{target_.config.url, target_.config.timeout, target_.config.body_size_limit});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return scrape_answer(t_ms, answer, seconds);
}

std::string TargetScraper::read_body(const FetchResult& answer, std::int64_t t_ms, ScrapeResult& result,
                                     std::set<Labels>& series) const {
  const ScrapeTargetConfig& c = target_.config;
  std::string parse_error;
  ingest::ExpositionParser parser(answer.body, c.url, format_of(answer), [&](const ingest::ParseError& e) {
    if (parse_error.empty()) parse_error = e.to_string();
  });
  parser.set_scrape_time(t_ms);
  ingest::Sample s;
  Labels labels;
  while (parser.next(s)) {
    if (!parse_error.empty()) break;
    ++result.samples_scraped;
    if (c.sample_limit != 0 && result.samples_scraped > c.sample_limit) {
      // Prometheus counts what the body held before failing; counting on costs only parsing.
      while (parser.next(s) && parse_error.empty()) ++result.samples_scraped;
      if (!parse_error.empty()) break;
      return "sample_limit exceeded: " + std::to_string(result.samples_scraped) + " samples, limit " +
             std::to_string(c.sample_limit);
    }
    labels = *s.labels;
    for (const auto& target_label : target_.labels) {
      const std::string& name = target_label.first;
      const std::string& value = target_label.second;
      auto it = std::find_if(labels.begin(), labels.end(), [&](const auto& l) { return l.first == name; });
      if (it == labels.end()) {
        labels.emplace_back(name, value);
      } else if (!c.honor_labels) {
        // Prometheus keeps the scraped value as exported_<name> (exported_exported_<name> when that is
        // taken too) and the target's under <name>.
        std::string exported = "exported_" + name;
        while (
            std::any_of(labels.begin(), labels.end(), [&](const auto& l) { return l.first == exported; })) {
          exported = "exported_" + exported;
        }
        it->first = exported;
        labels.emplace_back(name, value);
      }
    }
    normalize_labels(labels);
    if (c.label_limit != 0 && labels.size() > c.label_limit) {
      return "label_limit exceeded: " + labels_to_string(labels) + " has " + std::to_string(labels.size()) +
             " labels, limit " + std::to_string(c.label_limit);
    }
    for (const auto& [name, value] : labels) {
      if (c.label_name_length_limit != 0 && name.size() > c.label_name_length_limit) {
        return "label_name_length_limit exceeded: a label name of " + std::to_string(name.size()) +
               " bytes, limit " + std::to_string(c.label_name_length_limit);
      }
      if (c.label_value_length_limit != 0 && value.size() > c.label_value_length_limit) {
        return "label_value_length_limit exceeded: label " + name + " of " +
               labels_to_string(labels).substr(0, 80) + " is " + std::to_string(value.size()) +
               " bytes, limit " + std::to_string(c.label_value_length_limit);
      }
    }
    ScrapedSample out;
    const bool own_time = s.timestamped && c.honor_timestamps;
    out.t_ms = own_time ? s.t_ms : t_ms;
    out.value = s.value;
    if (!own_time) {
      if (!series.insert(labels).second) return "duplicate sample for series " + labels_to_string(labels);
    }
    out.labels = labels;
    result.samples.push_back(std::move(out));
  }
  if (!parse_error.empty()) return "parse error: " + parse_error;
  return "";
}

std::shared_ptr<const ScrapeResult> TargetScraper::scrape_answer(std::int64_t t_ms, const FetchResult& answer,
                                                                 double duration_seconds) {
  auto result = std::make_shared<ScrapeResult>();
  result->target = target_.labels;
  result->sequence = ++sequence_;
  result->t_ms = t_ms;
  result->duration_seconds = duration_seconds;
  std::set<Labels> series;
  std::string error = answer.ok ? read_body(answer, t_ms, *result, series) : answer.error;
  if (!error.empty()) {
    result->samples.clear();
    series.clear();
    result->error = std::move(error);
  }
  result->up = result->error.empty();
  result->samples_post_relabeling = result->up ? result->samples.size() : 0;
  for (const auto& labels : series) result->series_added += previous_.count(labels) == 0 ? 1 : 0;
  for (const auto& labels : previous_) {
    if (series.count(labels) != 0) continue;
    result->samples.push_back(ScrapedSample{labels, t_ms, stale_marker()});
    ++result->stale_markers;
  }
  previous_ = std::move(series);
  add_report(*result, target_.labels, "up", result->up ? 1 : 0);
  add_report(*result, target_.labels, "scrape_duration_seconds", duration_seconds);
  add_report(*result, target_.labels, "scrape_samples_scraped", static_cast<double>(result->samples_scraped));
  add_report(*result, target_.labels, "scrape_samples_post_metric_relabeling",
             static_cast<double>(result->samples_post_relabeling));
  add_report(*result, target_.labels, "scrape_series_added", static_cast<double>(result->series_added));
  return result;
}

}  // namespace gpuwatch::scrape
