// The child of the crash tests: appends to a real store (background flusher on, small blocks and segments so
// that sealing, checkpoints and segment deletion all happen while it runs) until it is killed.
// Usage: crash_writer DATA_DIR SERIES
// Series i gets points t = 1, 2, 3, ... with value t * 0.25 + i, continuing after what the store holds.
// After every commit() it prints "acked T" on stdout: every point with t <= T is durable.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "store/store.h"

using gpuwatch::store::LabelMatcher;
using gpuwatch::store::Labels;
using gpuwatch::store::Store;
using gpuwatch::store::StoreOptions;

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
  const int series = std::atoi(argv[2]);
  auto store = Store::open(options);
  std::vector<Labels> labels;
  for (int i = 0; i < series; ++i)
    labels.push_back({{"__name__", "crash_test_value"}, {"i", std::to_string(i)}});
  // Continue after the newest point every series holds (a crash may have kept a row only partly).
  std::vector<std::int64_t> last(static_cast<std::size_t>(series), 0);
  const std::vector<LabelMatcher> all{{"__name__", LabelMatcher::Op::kEqual, "crash_test_value"}};
  for (const auto& s : store->select(all, 0, INT64_MAX)) {
    last[static_cast<std::size_t>(std::stoi(gpuwatch::store::label_value(s.labels, "i")))] =
        s.points.back().t_ms;
  }
  std::int64_t t = series > 0 ? *std::min_element(last.begin(), last.end()) : 0;
  for (;;) {
    ++t;
    for (int i = 0; i < series; ++i) {
      if (t <= last[static_cast<std::size_t>(i)]) continue;
      const std::string problem = store->append(labels[i], t, static_cast<double>(t) * 0.25 + i);
      if (!problem.empty()) {
        std::fprintf(stderr, "crash_writer: %s\n", problem.c_str());
        return 1;
      }
    }
    if (t % 7 == 0) {
      store->commit();
      const std::string line = "acked " + std::to_string(t) + "\n";
      if (::write(1, line.data(), line.size()) < 0) return 1;
    }
  }
}
