// The child of the crash tests: appends to a real store (background flusher on, small blocks and segments so
// that sealing, checkpoints and segment deletion all happen while it runs) until it is killed.
// Usage: crash_writer DATA_DIR SERIES
// Series i gets points t = 1, 2, 3, ... with value t * 0.25 + i, continuing after what the store holds; a
// power and energy pair (crash_pair.h) gets the same timestamps, one or the other first in turn.
// After every commit() it prints "acked T" on stdout: every point with t <= T is durable. Every block keeps
// its timestamps apart (time_column_apart_bytes 0), so that a crash can fall between a time column and the
// blocks that name it.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "crash_pair.h"
#include "store/store.h"

using gpuwatch::store::LabelMatcher;
using gpuwatch::store::Labels;
using gpuwatch::store::Store;
using gpuwatch::store::StoreOptions;
using gpuwatch::store::test::crash_energy;
using gpuwatch::store::test::crash_pair_labels;
using gpuwatch::store::test::crash_power;
using gpuwatch::store::test::kCrashEnergy;
using gpuwatch::store::test::kCrashPower;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: crash_writer DATA_DIR SERIES\n");
    return 2;
  }
  StoreOptions options;
  options.data_dir = argv[1];
  options.sync_interval = std::chrono::milliseconds(3);
  options.block_window_ms = 40;
  options.block_max_samples = 16;
  options.wal_segment_bytes = 2048;
  options.time_column_apart_bytes = 0;
  const int series = std::atoi(argv[2]);
  auto store = Store::open(options);
  std::vector<Labels> labels;
  for (int i = 0; i < series; ++i)
    labels.push_back({{"__name__", "crash_test_value"}, {"i", std::to_string(i)}});
  const Labels power = crash_pair_labels(kCrashPower), energy = crash_pair_labels(kCrashEnergy);
  // Continue after the newest point every series holds (a crash may have kept a row only partly).
  std::vector<std::int64_t> last(static_cast<std::size_t>(series), 0);
  const std::vector<LabelMatcher> all{{"__name__", LabelMatcher::Op::kEqual, "crash_test_value"}};
  for (const auto& s : store->select(all, 0, INT64_MAX)) {
    last[static_cast<std::size_t>(std::stoi(gpuwatch::store::label_value(s.labels, "i")))] =
        s.points.back().t_ms;
  }
  auto newest = [&](const Labels& l) {
    const auto got = store->select(
        std::vector<LabelMatcher>{{"__name__", LabelMatcher::Op::kEqual, l[0].second}}, 0, INT64_MAX);
    return got.empty() ? std::int64_t{0} : got[0].points.back().t_ms;
  };
  const std::int64_t power_last = newest(power), energy_last = newest(energy);
  std::int64_t t = std::min(power_last, energy_last);
  if (series > 0) t = std::min(t, *std::min_element(last.begin(), last.end()));
  auto append = [&](const Labels& l, std::int64_t at, double v) {
    const std::string problem = store->append(l, at, v);
    if (!problem.empty()) {
      std::fprintf(stderr, "crash_writer: %s\n", problem.c_str());
      std::exit(1);
    }
  };
  for (;;) {
    ++t;
    for (int i = 0; i < series; ++i) {
      if (t > last[static_cast<std::size_t>(i)]) append(labels[i], t, static_cast<double>(t) * 0.25 + i);
    }
    // Either of the pair first, so that a block is cut before its reference's as often as after it.
    for (int k = 0; k < 2; ++k) {
      const bool power_now = (k == 0) == (t % 2 == 0);
      if (power_now && t > power_last) append(power, t, crash_power(t));
      if (!power_now && t > energy_last) append(energy, t, crash_energy(t));
    }
    if (t % 7 == 0) {
      store->commit();
      const std::string line = "acked " + std::to_string(t) + "\n";
      if (::write(1, line.data(), line.size()) < 0) return 1;
    }
  }
}
