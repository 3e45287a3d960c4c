// A simulated node whose scenario time the test moves: the real collector on libnvml-sim in lockstep, each
// snapshot handed to the remote-write sink (to the receivers under test) and to the agent's history (a real
// store through SnapshotHistory, as the history sink writes it). The history is the oracle: afterwards each
// receiver must hold every sample it holds, one by one.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "agent/remote_write_sink.h"
#include "collector/collector.h"
#include "core/label_matcher.h"
#include "receivers.h"
#include "sim_support.h"
#include "store/snapshot_history.h"
#include "store/store.h"

namespace gpuwatch::test {

// Two H200s whose loads move, so consecutive samples differ.
inline constexpr const char* kRemoteWriteScenario = R"(node:
  hostname: rw-node
  seed: 21
devices:
  - model: H200
    workload: {utilization: {value: 60, noise: 20}, memory: 40GiB}
  - model: H200
    workload: {utilization: {value: 30, periodic: {period: 5m, amplitude: 25}}, memory: 10GiB}
)";

// A receiver with every setting at its default.
inline RemoteWriteTarget target(const std::string& name, const std::string& url) {
  RemoteWriteTarget t;
  t.name = name;
  t.url = url;
  return t;
}

struct LockstepNodeOptions {
  double step_s = 2;
  std::string scenario = kRemoteWriteScenario;
  // The history's per-process series cap; the remote-write sink applies the same one.
  std::size_t max_process_series = RemoteWriteSink::kDefaultMaxProcessSeries;
  ScrapeSource scrapes;  // the services the node scrapes (src/scrape), if any
};

class LockstepNode {
 public:
  explicit LockstepNode(const std::vector<RemoteWriteTarget>& targets, LockstepNodeOptions options = {})
      : scenario_(options.scenario), step_s_(options.step_s) {
    CollectorOptions o;
    o.nvml_library = sim_library_path();
    o.proc_root = "";
    o.interval = std::chrono::milliseconds(std::llround(step_s_ * 1000));
    o.scrapes = std::move(options.scrapes);
    collector_ = std::make_unique<Collector>(o);
    store::StoreOptions so;
    so.data_dir = dir_.path() + "/history";
    so.clock_domain = "sim:remote-write";
    so.background_flusher = false;
    store_ = store::Store::open(so);
    history_ = std::make_unique<store::SnapshotHistory>(store_, options.max_process_series);
    sink_ = std::make_unique<RemoteWriteSink>(targets, dir_.path() + "/remote-write", nullptr, Labels{},
                                              options.max_process_series, GPUWATCH_REMOTE_WRITE_MODULE);
  }

  // Moves scenario time to `seconds` tick by tick; each snapshot goes to the receivers' queues and the
  // history.
  void run_until(double seconds) {
    for (; t_ <= seconds; t_ += step_s_) {
      collector_->clock().sleep_until_ms(sim_.ms_at(t_));
      collector_->tick();
      const SnapshotPtr snapshot = collector_->latest();
      sink_->consume(snapshot);
      history_->append(*snapshot);
      last_ms_ = snapshot->timestamp_ms;
    }
  }

  // Waits (wall time: the senders are real threads talking to real processes) until every receiver's queue
  // is empty.
  bool wait_until_sent(std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      bool empty = true;
      for (const auto& s : sink_->stats()) empty = empty && s.queue.requests == 0;
      if (empty) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  // Every sample the history holds of the series whose names match `names` (the GPU series by default),
  // staleness markers included.
  RawSamples history(const std::string& names = "gpu_.+") const {
    const std::vector<LabelMatcher> gpu{LabelMatcher("__name__", MatchOp::kRegexMatch, names)};
    RawSamples out;
    for (auto& series : store_->select(gpu, INT64_MIN, INT64_MAX))
      out[labels_to_string(series.labels)] = series.points;
    return out;
  }

  RemoteWriteSink& sink() { return *sink_; }
  std::int64_t first_ms() const { return sim_.ms_at(0); }
  std::int64_t last_ms() const { return last_ms_; }
  double now_s() const { return t_; }

 private:
  SimScenario scenario_;
  TempDir dir_;
  Sim sim_;
  double step_s_;
  double t_ = 0;
  std::int64_t last_ms_ = 0;
  std::unique_ptr<Collector> collector_;
  std::shared_ptr<store::Store> store_;
  std::unique_ptr<store::SnapshotHistory> history_;
  std::unique_ptr<RemoteWriteSink> sink_;
};

// Every sample of `expected` is in `got` at the same time with the same value (relative `tolerance`:
// VictoriaMetrics keeps 12 significant digits), and `got` holds nothing else. Says how many were compared.
inline std::size_t expect_same_samples(const RawSamples& expected, const RawSamples& got,
                                       const std::string& who, double tolerance = 0) {
  std::size_t compared = 0, missing_series = 0, differing = 0;
  std::string example;
  for (const auto& [series, points] : expected) {
    const auto it = got.find(series);
    if (it == got.end()) {
      if (missing_series++ == 0) example = "missing series " + series;
      continue;
    }
    bool same = it->second.size() == points.size();
    for (std::size_t i = 0; same && i < points.size(); ++i) {
      const Point& a = points[i];
      const Point& b = it->second[i];
      same = a.t_ms == b.t_ms && std::abs(a.value - b.value) <= tolerance * std::max(1.0, std::abs(a.value));
    }
    compared += points.size();
    if (!same && differing++ == 0 && example.empty())
      example = series + ": history has " + std::to_string(points.size()) + " samples, " + who + " " +
                std::to_string(it->second.size());
  }
  EXPECT_EQ(missing_series, 0u) << who << ": " << example;
  EXPECT_EQ(differing, 0u) << who << ": " << example;
  EXPECT_EQ(got.size(), expected.size()) << who << " holds series the history does not";
  return compared;
}

inline std::size_t count_samples(const RawSamples& samples) {
  std::size_t n = 0;
  for (const auto& [series, points] : samples) n += points.size();
  return n;
}

// The receiver's samples once it holds at least `expected` (a receiver makes what it accepted searchable a
// moment later: VictoriaMetrics within a second or so), or what it holds after 20 s.
inline RawSamples samples_when_visible(Receiver& receiver, const std::string& selector, std::int64_t start_ms,
                                       std::int64_t end_ms, std::size_t expected) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  RawSamples got = receiver.samples(selector, start_ms, end_ms);
  while (count_samples(got) < expected && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the receiver's own pace, in wall time
    got = receiver.samples(selector, start_ms, end_ms);
  }
  return got;
}

// The receiver holds every GPU sample of the node's history, compared one by one; says how many it compared.
inline std::size_t expect_receiver_holds_history(const LockstepNode& node, const RawSamples& history,
                                                 Receiver& receiver, const std::string& who,
                                                 double tolerance = 0) {
  std::size_t recorded = 0;
  for (const auto& [series, points] : history) recorded += points.size();
  return expect_same_samples(
      history,
      samples_when_visible(receiver, "{__name__=~\"gpu_.+\"}", node.first_ms(), node.last_ms(), recorded),
      who, tolerance);
}

}  // namespace gpuwatch::test
