#include <gtest/gtest.h>

#include "core/server_buckets.h"
#include "slo/server_templates.h"
#include "slo/spec_files.h"

namespace gpuwatch::slo {
namespace {

using std::chrono::milliseconds;

TEST(ServerTemplates, VllmLatencyCountsTheBucketAtOrBelowTheThreshold) {
  TemplateRequest r;
  r.server = ServerKind::kVllm;
  r.sli = TemplateSli::kLatency;
  r.model = "llama-3.1-70b-instruct";
  r.threshold = milliseconds(12'000);  // between the 10 s and 15 s buckets: 10 s is used
  const auto slos = parse_slo_text(server_template(r), "t.yaml");
  ASSERT_EQ(slos.size(), 1u);
  EXPECT_EQ(slos[0].kind, EventKind::kGood);
  EXPECT_EQ(slos[0].events[0].metric, "vllm:e2e_request_latency_seconds_bucket");
  bool le10 = false;
  for (const auto& m : slos[0].events[0].matchers) le10 = le10 || (m.name() == "le" && m.value() == "10");
  EXPECT_TRUE(le10);
  EXPECT_NE(slos[0].description.find("between 10s and 12s counts as slow"), std::string::npos)
      << slos[0].description;
  EXPECT_EQ(slos[0].total[0].metric, "vllm:e2e_request_latency_seconds_count");
}

TEST(ServerTemplates, TritonAvailabilityAndNoPercentileFromMeans) {
  TemplateRequest r;
  r.server = ServerKind::kTriton;
  r.sli = TemplateSli::kAvailability;
  r.model = "bert-ranker";
  const auto slos = parse_slo_text(server_template(r), "t.yaml");
  ASSERT_EQ(slos.size(), 1u);
  EXPECT_EQ(slos[0].events[0].metric, "nv_inference_request_failure");
  ASSERT_EQ(slos[0].total.size(), 2u);
  r.sli = TemplateSli::kLatency;
  r.threshold = milliseconds(100);
  try {
    server_template(r);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("mean"), std::string::npos);
  }
}

TEST(ServerTemplates, TgiHasNoTimeToFirstToken) {
  TemplateRequest r;
  r.server = ServerKind::kTgi;
  r.sli = TemplateSli::kTimeToFirstToken;
  r.model = "mistral";
  EXPECT_THROW(server_template(r), std::invalid_argument);
  r.sli = TemplateSli::kAvailability;
  r.job = "inference";
  const auto slos = parse_slo_text(server_template(r), "t.yaml");
  EXPECT_EQ(slos[0].events[0].metric, "tgi_request_success");
  EXPECT_EQ(slos[0].total[0].metric, "tgi_request_count");
}

TEST(ServerTemplates, ThresholdBelowTheFirstBucketIsRefused) {
  EXPECT_THROW(bucket_at_or_below(vllm_e2e_buckets(), 0.1), std::invalid_argument);
  EXPECT_DOUBLE_EQ(bucket_at_or_below(vllm_e2e_buckets(), 0.8), 0.8);
  EXPECT_DOUBLE_EQ(bucket_at_or_below(vllm_e2e_buckets(), 0.79), 0.5);
}

}  // namespace
}  // namespace gpuwatch::slo
