// Renders /metrics once per (snapshot sequence, format, naming, gzip), on first demand, and serves the cached
// bytes afterwards: a scrape only copies a shared_ptr. Concurrent requests for the same variant wait for one
// render instead of rendering in parallel. Thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "core/metric_naming.h"
#include "core/snapshot.h"
#include "exposition/dcgm_metrics.h"
#include "exposition/exposition.h"

namespace gpuwatch {

struct RenderVariant {
  ExpositionFormat format = ExpositionFormat::kText004;
  MetricNaming naming = MetricNaming::kNative;
  bool gzip = false;
};

struct Rendering {
  std::shared_ptr<const std::string> body;  // gzip-compressed when the variant asked for it
  std::string_view content_type;
};

class MetricsCache {
 public:
  // extra: families appended to every rendering (see ExtraFamilies); they are rendered with the snapshot, so
  // they are as fresh as the latest snapshot.
  explicit MetricsCache(DcgmOptions dcgm = {}, ExtraFamilies extra = {});

  // The rendering of `snapshot` in `variant`. A null snapshot (before the first collection) renders the
  // agent's own families only. dcgm naming exists in text 0.0.4 only: it ignores variant.format.
  Rendering get(const SnapshotPtr& snapshot, RenderVariant variant);

  // How many bodies were rendered or compressed so far (for tests and the agent's own metrics).
  std::uint64_t renders() const { return renders_.load(); }

 private:
  static constexpr std::size_t kVariants = 6;  // {text, openmetrics, dcgm} x {identity, gzip}
  struct Slot {
    std::once_flag once;
    std::shared_ptr<const std::string> body;
  };
  struct Generation {
    std::optional<std::uint64_t> sequence;  // nullopt: before the first snapshot
    SnapshotPtr snapshot;
    std::array<Slot, kVariants> slots;
  };

  std::shared_ptr<const std::string> body(Generation& gen, std::size_t slot);
  std::shared_ptr<Generation> generation_for(const SnapshotPtr& snapshot);

  DcgmOptions dcgm_;
  ExtraFamilies extra_;
  std::mutex mutex_;
  std::shared_ptr<Generation> current_;
  std::atomic<std::uint64_t> renders_{0};
};

}  // namespace gpuwatch
