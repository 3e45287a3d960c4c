// Remote write as a sink: each snapshot becomes one WriteRequest per receiver, of the same series and
// samples the history stores (native_families and the published families, less kNotStoredFamilies; a
// value carried without being read again is not sent again; per-process series under the history's cap,
// the rest summed into pid="other" as the history sums them; the scrapes the snapshot carries, each sample
// at its own time, staleness markers with their exact bits), filtered by the receiver's keep/drop rules,
// and queued on disk for the receiver's sender (remote_write/remote_writer.h). Its queue keeps what it holds
// (drop newest when full, as history): the snapshots queued are written in order.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent/published_families.h"
#include "agent/snapshot_sink.h"
#include "config/remote_write_target.h"
#include "remote_write/remote_writer.h"
#include "remote_write/series_filter.h"
#include "store/process_cap.h"

namespace gpuwatch {

class RemoteWriteSink final : public SnapshotSink {
 public:
  // queue_dir: where each receiver's queue file lives (created when missing). target_labels: added to each
  // series that lacks them, as a scrape would add them (instance, job), so that a fleet's series of one
  // node are told from another's and the receiver holds the series the agent's own query API answers.
  // max_process_series: the history's per-process series cap (store::ProcessSeriesCap), so that a receiver
  // holds the series the history holds. module_path: the remote-write module (wire_format_module.h; "" =
  // the one next to the binary, else the installed one). Throws when the module cannot be loaded
  // (remote_write::ModuleMissing), a queue cannot be opened or a target is unusable.
  RemoteWriteSink(const std::vector<RemoteWriteTarget>& targets, const std::string& queue_dir,
                  std::shared_ptr<const PublishedState> published, Labels target_labels = {},
                  std::size_t max_process_series = kDefaultMaxProcessSeries,
                  const std::string& module_path = "");
  std::string_view name() const override { return "remote_write"; }
  void consume(const SnapshotPtr& snapshot) override;
  SinkQueueOptions queue() const override { return {32, WhenFull::kDropNewest}; }
  std::vector<Family> families() const override;
  std::vector<remote_write::RemoteWriteStats> stats() const;

  static constexpr std::size_t kDefaultMaxProcessSeries = 2000;  // store_max_process_series' default

 private:
  struct Receiver {
    remote_write::SeriesFilter filter;
    std::unique_ptr<remote_write::RemoteWriter> writer;
  };
  // What a rendered series becomes, built once: its labels and the read time of the value last queued.
  struct Known {
    Labels labels;
    std::int64_t sent_read_ms = INT64_MIN;
    std::int64_t seen_ms = 0;
    bool ask_cap = true;   // the cap is asked again after each sweep, so that idle series free their place
    bool admitted = true;  // false: summed into `aggregate`
    Labels aggregate;
  };
  using Requests = std::vector<remote_write::WriteRequestBuilder>;
  void add_family(const Family& family, std::int64_t t, Requests& out);
  void add_scrape(const ScrapeResult& scrape, Requests& out);
  void add(const Labels& labels, std::int64_t t, double value, Requests& out);

  std::shared_ptr<const remote_write::WireFormat> format_;
  std::vector<Receiver> receivers_;
  std::shared_ptr<const PublishedState> published_;
  Labels target_labels_;
  std::unordered_map<std::string, Known> known_;  // on the sink's thread only
  store::ProcessSeriesCap cap_;
  std::int64_t swept_at_ms_ = 0;
};

}  // namespace gpuwatch
