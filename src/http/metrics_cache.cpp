#include "http/metrics_cache.h"

#include "exposition/native_metrics.h"
#include "http/gzip.h"

namespace gpuwatch {
namespace {

// Slots 0..2 hold plain bodies, 3..5 the same bodies gzip-compressed.
constexpr std::size_t kText = 0, kOpenMetrics = 1, kDcgm = 2, kGzipOffset = 3;

std::size_t plain_slot(RenderVariant v) {
  if (v.naming == MetricNaming::kDcgm) return kDcgm;
  return v.format == ExpositionFormat::kOpenMetrics ? kOpenMetrics : kText;
}

}  // namespace

MetricsCache::MetricsCache(DcgmOptions dcgm, ExtraFamilies extra) : dcgm_(dcgm), extra_(std::move(extra)) {}

std::shared_ptr<MetricsCache::Generation> MetricsCache::generation_for(const SnapshotPtr& snapshot) {
  std::optional<std::uint64_t> sequence;
  if (snapshot) sequence = snapshot->sequence;
  std::lock_guard lock(mutex_);
  if (current_ && current_->sequence == sequence) return current_;
  auto fresh = std::make_shared<Generation>();
  fresh->sequence = sequence;
  fresh->snapshot = snapshot;
  // A request that read an older snapshot than the cached one (it raced a publication) is served from a
  // generation of its own, so it does not throw the newer renderings away.
  if (current_ && current_->sequence && (!sequence || *sequence < *current_->sequence)) return fresh;
  current_ = fresh;
  return fresh;
}

std::shared_ptr<const std::string> MetricsCache::body(Generation& gen, std::size_t slot) {
  Slot& s = gen.slots[slot];
  std::call_once(s.once, [&] {
    if (slot >= kGzipOffset) {
      const auto plain = body(gen, slot - kGzipOffset);
      s.body = std::make_shared<const std::string>(gzip_compress(*plain));
    } else {
      static const Snapshot kBeforeFirstCollection{};
      const Snapshot& snap = gen.snapshot ? *gen.snapshot : kBeforeFirstCollection;
      if (slot == kDcgm) {
        std::string text = render_dcgm(snap, dcgm_);
        if (extra_) extra_(text, ExpositionFormat::kText004);
        s.body = std::make_shared<const std::string>(std::move(text));
      } else {
        s.body = std::make_shared<const std::string>(render_native(
            snap, slot == kOpenMetrics ? ExpositionFormat::kOpenMetrics : ExpositionFormat::kText004,
            extra_));
      }
    }
    renders_.fetch_add(1);
  });
  return s.body;
}

Rendering MetricsCache::get(const SnapshotPtr& snapshot, RenderVariant variant) {
  if (variant.naming == MetricNaming::kDcgm) variant.format = ExpositionFormat::kText004;
  const auto gen = generation_for(snapshot);
  const std::size_t slot = plain_slot(variant) + (variant.gzip ? kGzipOffset : 0);
  return Rendering{body(*gen, slot), content_type(variant.format)};
}

}  // namespace gpuwatch
