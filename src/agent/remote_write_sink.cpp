#include "agent/remote_write_sink.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <map>

#include "core/metric_catalogue.h"
#include "core/scrape_result.h"
#include "exposition/catalogue_family.h"
#include "exposition/native_metrics.h"
#include "remote_write/wire_format_module.h"
#include "store/snapshot_history.h"

namespace gpuwatch {
namespace {

// Series not seen for this long are forgotten (exited processes), as the history forgets them.
constexpr std::int64_t kForgetMs = 60'000;
// A per-process series not seen for this long frees its place under the cap: the history's figure.
constexpr std::int64_t kForgetProcessSeriesMs = 10 * 60 * 1000;

}  // namespace

RemoteWriteSink::RemoteWriteSink(const std::vector<RemoteWriteTarget>& targets, const std::string& queue_dir,
                                 std::shared_ptr<const PublishedState> published, Labels target_labels,
                                 std::size_t max_process_series, const std::string& module_path)
    : format_(remote_write::open_wire_format(module_path)),
      published_(std::move(published)),
      target_labels_(std::move(target_labels)),
      cap_(max_process_series, kForgetProcessSeriesMs) {
  std::filesystem::create_directories(queue_dir);
  for (const auto& target : targets) {
    receivers_.push_back(Receiver{remote_write::SeriesFilter(target.filters),
                                  std::make_unique<remote_write::RemoteWriter>(target, queue_dir, format_)});
  }
}

void RemoteWriteSink::add(const Labels& labels, std::int64_t t, double value, Requests& out) {
  for (std::size_t i = 0; i < receivers_.size(); ++i) {
    if (receivers_[i].filter.keeps(labels)) out[i].add(labels, t, value);
  }
}

void RemoteWriteSink::add_family(const Family& family, std::int64_t t, Requests& out) {
  if (!is_stored(family.name)) return;
  std::string key;
  std::map<Labels, double> aggregates;
  for (const auto& series : family.series) {
    store::series_key(family.name, series, key);
    auto [it, fresh] = known_.try_emplace(key);
    Known& known = it->second;
    if (fresh) {
      known.labels = store::stored_labels(family.name, series);
      for (const auto& target : target_labels_)
        if (label_value(known.labels, target.first).empty()) known.labels.push_back(target);
      normalize_labels(known.labels);
    }
    if (known.ask_cap) {
      known.admitted = cap_.admit(known.labels, t);
      known.aggregate = known.admitted ? Labels{} : store::aggregate_labels(known.labels);
      known.ask_cap = false;
    }
    known.seen_ms = t;
    if (!known.admitted) {
      aggregates[known.aggregate] += series.value;  // at the snapshot's time, as the history stores it
      continue;
    }
    const std::int64_t read_t = store::stored_time(series, t);
    if (read_t <= known.sent_read_ms) continue;  // carried, not read again: already sent
    known.sent_read_ms = read_t;
    add(known.labels, read_t, series.value, out);
  }
  for (const auto& [labels, value] : aggregates) add(labels, t, value, out);
}

// A scrape's samples carry their target's labels (job, instance of the service, not of the agent) and their
// own times; the staleness markers among them keep StaleNaN's bits through protobuf's fixed64 encoding.
void RemoteWriteSink::add_scrape(const ScrapeResult& scrape, Requests& out) {
  for (const auto& s : scrape.samples) add(s.labels, s.t_ms, s.value, out);
}

void RemoteWriteSink::consume(const SnapshotPtr& snapshot) {
  const std::int64_t t = snapshot->timestamp_ms;
  if (t - swept_at_ms_ >= kForgetMs || t < swept_at_ms_) {
    if (t < swept_at_ms_) {
      known_.clear();  // the clock went back
    } else {
      std::erase_if(known_, [this](const auto& entry) { return entry.second.seen_ms < swept_at_ms_; });
      for (auto& [key, known] : known_) known.ask_cap = true;
    }
    swept_at_ms_ = t;
  }
  Requests requests;
  requests.reserve(receivers_.size());
  for (std::size_t i = 0; i < receivers_.size(); ++i) requests.emplace_back(*format_);
  for (const auto& family : native_families(*snapshot)) add_family(family, t, requests);
  if (published_) {
    const PublishedFamilies published = published_->stored_families();
    for (const auto& family : published.families) add_family(family, t, requests);
  }
  // Each scrape once: a snapshot holds only the scrapes that finished since the one before.
  for (const auto& scrape : snapshot->scrapes) add_scrape(*scrape, requests);
  // One receiver's full disk must not keep the others' samples back: each is tried, the first error rethrown
  // (the runner counts and logs it).
  std::exception_ptr first_error;
  for (std::size_t i = 0; i < receivers_.size(); ++i) {
    try {
      receivers_[i].writer->enqueue(requests[i]);
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  }
  if (first_error) std::rethrow_exception(first_error);
}

std::vector<remote_write::RemoteWriteStats> RemoteWriteSink::stats() const {
  std::vector<remote_write::RemoteWriteStats> out;
  for (const auto& r : receivers_) out.push_back(r.writer->stats());
  return out;
}

std::vector<Family> RemoteWriteSink::families() const {
  Family queue_length = catalogue_family(Metric::kRemoteWriteQueueLength);
  Family queue_bytes = catalogue_family(Metric::kRemoteWriteQueueBytes);
  Family lag = catalogue_family(Metric::kRemoteWriteLag);
  Family sent = catalogue_family(Metric::kRemoteWriteSamplesSent);
  Family bytes = catalogue_family(Metric::kRemoteWriteBytesSent);
  Family failures = catalogue_family(Metric::kRemoteWriteFailures);
  Family dropped = catalogue_family(Metric::kRemoteWriteSamplesDropped);
  for (const auto& s : stats()) {
    const std::string& r = s.name;
    const auto d = [](auto v) { return static_cast<double>(v); };
    queue_length.series.push_back(Series{{{"remote", r}}, d(s.queue.samples)});
    queue_bytes.series.push_back(Series{{{"remote", r}}, d(s.queue.bytes)});
    lag.series.push_back(Series{
        {{"remote", r}}, s.queue.requests == 0 ? 0.0 : d(s.queue.newest_ms - s.queue.oldest_ms) / 1000.0});
    sent.series.push_back(Series{{{"remote", r}}, d(s.samples_sent)});
    bytes.series.push_back(Series{{{"remote", r}}, d(s.bytes_sent)});
    failures.series.push_back(Series{{{"remote", r}, {"reason", "server_error"}}, d(s.failures_server)});
    failures.series.push_back(Series{{{"remote", r}, {"reason", "throttled"}}, d(s.failures_throttled)});
    failures.series.push_back(Series{{{"remote", r}, {"reason", "network"}}, d(s.failures_network)});
    dropped.series.push_back(Series{{{"remote", r}, {"reason", "rejected"}}, d(s.dropped_rejected)});
    dropped.series.push_back(Series{{{"remote", r}, {"reason", "queue_full"}}, d(s.dropped_queue_full)});
  }
  std::vector<Family> out;
  for (Family* f : {&queue_length, &queue_bytes, &lag, &sent, &bytes, &failures, &dropped})
    out.push_back(std::move(*f));
  return out;
}

}  // namespace gpuwatch
