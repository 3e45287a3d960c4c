#include "http/metrics_cache.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "exposition/native_metrics.h"
#include "http/gzip.h"
#include "snapshot_fixture.h"

namespace gpuwatch {
namespace {

SnapshotPtr node(std::uint64_t sequence) {
  return std::make_shared<const Snapshot>(testing::h200_node(sequence));
}

TEST(Gzip, RoundTrip) {
  const std::string text = render_native(testing::h200_node(), ExpositionFormat::kText004);
  const std::string packed = gzip_compress(text);
  ASSERT_GE(packed.size(), 2U);
  EXPECT_EQ(static_cast<unsigned char>(packed[0]), 0x1f);  // gzip magic, not a bare zlib stream
  EXPECT_EQ(static_cast<unsigned char>(packed[1]), 0x8b);
  EXPECT_LT(packed.size(), text.size() / 4);
  EXPECT_EQ(gzip_decompress(packed), text);
  EXPECT_EQ(gzip_decompress(gzip_compress("")), "");
}

TEST(Gzip, CorruptInputIsAnErrorNotACrash) {
  std::string packed = gzip_compress("hello hello hello");
  EXPECT_THROW(gzip_decompress(packed.substr(0, packed.size() / 2)), std::runtime_error);
  packed[packed.size() / 2] ^= 0x55;
  EXPECT_THROW(gzip_decompress(packed), std::runtime_error);
}

TEST(MetricsCache, RendersOncePerSequenceAndVariant) {
  MetricsCache cache;
  const auto s7 = node(7);
  const auto first = cache.get(s7, {});
  EXPECT_EQ(cache.renders(), 1U);
  const auto again = cache.get(s7, {});
  EXPECT_EQ(cache.renders(), 1U);
  EXPECT_EQ(first.body.get(), again.body.get());  // the same cached bytes
  EXPECT_EQ(first.content_type, "text/plain; version=0.0.4; charset=utf-8");

  const auto om = cache.get(s7, {ExpositionFormat::kOpenMetrics, MetricNaming::kNative, false});
  EXPECT_EQ(cache.renders(), 2U);
  EXPECT_EQ(om.content_type, "application/openmetrics-text; version=1.0.0; charset=utf-8");
  EXPECT_EQ(*om.body, render_native(*s7, ExpositionFormat::kOpenMetrics));

  // gzip reuses the plain rendering and compresses it once.
  const auto gz = cache.get(s7, {ExpositionFormat::kText004, MetricNaming::kNative, true});
  EXPECT_EQ(cache.renders(), 3U);
  EXPECT_EQ(gzip_decompress(*gz.body), *first.body);
  cache.get(s7, {ExpositionFormat::kText004, MetricNaming::kNative, true});
  EXPECT_EQ(cache.renders(), 3U);

  // A new snapshot with the same sequence is the same rendering; a new sequence renders again.
  cache.get(node(7), {});
  EXPECT_EQ(cache.renders(), 3U);
  const auto s8 = cache.get(node(8), {});
  EXPECT_EQ(cache.renders(), 4U);
  EXPECT_NE(s8.body.get(), first.body.get());
}

TEST(MetricsCache, DcgmIsText004Only) {
  MetricsCache cache(DcgmOptions{"hostname"});
  const auto r = cache.get(node(1), {ExpositionFormat::kOpenMetrics, MetricNaming::kDcgm, false});
  EXPECT_EQ(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(r.body->find("DCGM_FI_DEV_GPU_TEMP{"), std::string::npos);
  EXPECT_NE(r.body->find("hostname=\"gpu-node-07\""), std::string::npos);
  cache.get(node(1), {ExpositionFormat::kText004, MetricNaming::kDcgm, false});
  EXPECT_EQ(cache.renders(), 1U);
}

TEST(MetricsCache, BeforeTheFirstSnapshotServesAgentFamilies) {
  MetricsCache cache;
  const auto r = cache.get(nullptr, {});
  EXPECT_NE(r.body->find("gpuwatch_build_info{version="), std::string::npos);
  EXPECT_EQ(r.body->find("gpu_up"), std::string::npos);
  cache.get(nullptr, {});
  EXPECT_EQ(cache.renders(), 1U);
}

TEST(MetricsCache, AnOlderSnapshotDoesNotEvictTheNewerRendering) {
  MetricsCache cache;
  const auto s9 = node(9);
  cache.get(s9, {});
  cache.get(node(8), {});  // a request that raced a publication
  EXPECT_EQ(cache.renders(), 2U);
  cache.get(s9, {});
  EXPECT_EQ(cache.renders(), 2U);
}

TEST(MetricsCache, ConcurrentRequestsRenderOnce) {
  MetricsCache cache;
  const auto s = node(3);
  std::vector<std::shared_ptr<const std::string>> bodies(8);
  {
    std::vector<std::jthread> threads;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      threads.emplace_back([&, i] {
        bodies[i] = cache.get(s, {ExpositionFormat::kText004, MetricNaming::kNative, true}).body;
      });
    }
  }
  EXPECT_EQ(cache.renders(), 2U);  // one plain render, one compression
  for (const auto& b : bodies) EXPECT_EQ(b.get(), bodies[0].get());
}

}  // namespace
}  // namespace gpuwatch
