#include <gtest/gtest.h>

#include <set>

#include "exposition/native_metrics.h"
#include "exposition_parser.h"
#include "snapshot_fixture.h"
#include "test_support.h"

namespace gpuwatch {
namespace {

using testing::find_sample;
using testing::parse_exposition;

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

TEST(NativeRender, Text004MatchesGolden) {
  testing::expect_golden("native-text.txt", render_native(testing::h200_node(), ExpositionFormat::kText004));
}

TEST(NativeRender, OpenMetricsMatchesGolden) {
  testing::expect_golden("native-openmetrics.txt",
                         render_native(testing::h200_node(), ExpositionFormat::kOpenMetrics));
}

TEST(NativeRender, PromtoolFindsNothingAtAll) {
  const auto r =
      testing::promtool_check_metrics(render_native(testing::h200_node(), ExpositionFormat::kText004));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.lines.empty()) << join(r.lines);
}

TEST(NativeRender, PromtoolFindsNothingBeforeTheFirstCollection) {
  const auto r = testing::promtool_check_metrics(render_native(Snapshot{}, ExpositionFormat::kText004));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.lines.empty()) << join(r.lines);
}

TEST(NativeRender, Text004ParsesWithContiguousFamilies) {
  const auto r = parse_exposition(render_native(testing::h200_node(), ExpositionFormat::kText004),
                                  ExpositionFormat::kText004);
  EXPECT_TRUE(r.errors.empty()) << join(r.errors);
  std::set<std::string> names;
  for (const auto& f : r.families) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    EXPECT_FALSE(f.help.empty()) << f.name;
    EXPECT_FALSE(f.samples.empty()) << f.name;
  }
  EXPECT_TRUE(names.contains("gpu_info"));
  EXPECT_TRUE(names.contains("gpu_driver_info"));
  EXPECT_TRUE(names.contains("gpuwatch_build_info"));
}

TEST(NativeRender, OpenMetricsFollowsTheGrammar) {
  const auto r = parse_exposition(render_native(testing::h200_node(), ExpositionFormat::kOpenMetrics),
                                  ExpositionFormat::kOpenMetrics);
  EXPECT_TRUE(r.errors.empty()) << join(r.errors);
  for (const auto& f : r.families) {
    if (f.type == "counter") {
      EXPECT_FALSE(f.name.ends_with("_total")) << f.name;
    }
  }
  const auto* energy = find_sample(r, "gpu_energy_joules_total", {{"gpu", "0"}});
  ASSERT_NE(energy, nullptr);
  EXPECT_DOUBLE_EQ(energy->value, 123456.789);
  ASSERT_NE(find_sample(r, "gpu_info", {{"name", "NVIDIA H200"}}), nullptr);
}

TEST(NativeRender, OpenMetricsParserRejectsBrokenText) {
  // The grammar check must be able to fail: each of these breaks one rule it relies on.
  const std::vector<std::string> broken = {
      "# TYPE a counter\na 1\n# EOF\n",  // counter sample without _total
      "# TYPE a gauge\na 1\n",           // no # EOF
      "# TYPE a_bytes gauge\n# HELP a_bytes h\n# UNIT a_bytes bytes\na_bytes 1\n# EOF\n",  // UNIT after HELP
      "# TYPE a gauge\n# UNIT a bytes\na 1\n# EOF\n",  // unit not the name's suffix
      "# TYPE a gauge\na{x=\"1\"} 1\n# TYPE b gauge\nb 1\n# TYPE a gauge\na 2\n# EOF\n",  // not contiguous
      "# TYPE a gauge\na{x=\"\\q\"} 1\n# EOF\n",                                          // bad escape
      "# TYPE a info\na_info 2\n# EOF\n",   // info value must be 1
      "# TYPE a gauge\na 1\n# EOF\nb 1\n",  // text after EOF
  };
  for (const auto& text : broken) {
    EXPECT_FALSE(parse_exposition(text, ExpositionFormat::kOpenMetrics).errors.empty()) << text;
  }
}

TEST(NativeRender, IdentityAndExtraLabels) {
  const auto r = parse_exposition(render_native(testing::h200_node(), ExpositionFormat::kText004),
                                  ExpositionFormat::kText004);
  const auto* clock = find_sample(r, "gpu_clock_hertz", {{"gpu", "1"}, {"clock", "sm"}});
  ASSERT_NE(clock, nullptr);
  EXPECT_EQ(clock->labels[1].first, "uuid");
  EXPECT_EQ(clock->value, 1.98e9);
  const auto* ecc = find_sample(r, "gpu_ecc_errors_total", {{"type", "corrected"}, {"counter", "aggregate"}});
  ASSERT_NE(ecc, nullptr);
  EXPECT_EQ(ecc->value, 3);
  const auto* xid = find_sample(r, "gpu_xid_errors_total", {{"gpu", "1"}, {"xid", "79"}});
  ASSERT_NE(xid, nullptr);
  EXPECT_EQ(xid->value, 1);
  const auto* weird = find_sample(r, "gpu_process_memory_used_bytes", {{"pid", "4343"}});
  ASSERT_NE(weird, nullptr);
  EXPECT_EQ(weird->labels[3], (std::pair<std::string, std::string>{"process", "we\"ird\\name\nx"}));
  const auto* errors = find_sample(r, "gpuwatch_collector_errors_total",
                                   {{"gpu", "2"}, {"call", "nvmlDeviceGetTemperature"}, {"code", "15"}});
  ASSERT_NE(errors, nullptr);
  EXPECT_EQ(errors->value, 3);
  ASSERT_NE(find_sample(r, "gpuwatch_ticks_total"), nullptr);
  EXPECT_EQ(find_sample(r, "gpuwatch_ticks_total")->value, 42);
}

TEST(NativeRender, MigInstancesCarryInstanceIds) {
  Snapshot s;
  DeviceSnapshot mig = testing::full_h200(0);
  mig.identity.is_mig_instance = true;
  mig.identity.uuid = "MIG-1234";
  mig.identity.parent_uuid = "GPU-parent";
  mig.identity.gpu_instance_id = 3;
  mig.identity.compute_instance_id = 1;
  s.devices.push_back(mig);
  const auto r = parse_exposition(render_native(s, ExpositionFormat::kText004), ExpositionFormat::kText004);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_NE(find_sample(r, "gpu_up",
                        {{"uuid", "MIG-1234"}, {"gpu_instance_id", "3"}, {"compute_instance_id", "1"}}),
            nullptr);
}

TEST(NativeRender, LostGpuRendersUpZeroAndNothingStale) {
  const auto r = parse_exposition(render_native(testing::h200_node(), ExpositionFormat::kText004),
                                  ExpositionFormat::kText004);
  const auto* up = find_sample(r, "gpu_up", {{"gpu", "3"}});
  ASSERT_NE(up, nullptr);
  EXPECT_EQ(up->value, 0);
  for (const auto& f : r.families) {
    if (f.name == "gpu_up" || f.name == "gpu_stale" || f.name == "gpu_info") continue;
    for (const auto& s : f.samples) {
      for (const auto& [k, v] : s.labels) EXPECT_FALSE(k == "gpu" && v == "3") << s.name;
    }
  }
}

TEST(NativeRender, StaleGpuRendersStaleOneWithItsLastValues) {
  const auto r = parse_exposition(render_native(testing::h200_node(), ExpositionFormat::kText004),
                                  ExpositionFormat::kText004);
  EXPECT_EQ(find_sample(r, "gpu_up", {{"gpu", "2"}})->value, 0);
  EXPECT_EQ(find_sample(r, "gpu_stale", {{"gpu", "2"}})->value, 1);
  EXPECT_EQ(find_sample(r, "gpu_stale", {{"gpu", "0"}})->value, 0);
  EXPECT_EQ(find_sample(r, "gpu_up", {{"gpu", "0"}})->value, 1);
  const auto* temp = find_sample(r, "gpu_temperature_celsius", {{"gpu", "2"}});
  ASSERT_NE(temp, nullptr);
  EXPECT_EQ(temp->value, 56);
}

TEST(NativeRender, BeforeTheFirstCollectionOnlyAgentFamilies) {
  const std::string text = render_native(Snapshot{}, ExpositionFormat::kOpenMetrics);
  const auto r = parse_exposition(text, ExpositionFormat::kOpenMetrics);
  EXPECT_TRUE(r.errors.empty()) << join(r.errors);
  for (const auto& f : r.families) EXPECT_TRUE(f.name.starts_with("gpuwatch_")) << f.name;
  EXPECT_NE(find_sample(r, "gpuwatch_build_info", {{"version", std::string(gpuwatch_version())}}), nullptr);
}

}  // namespace
}  // namespace gpuwatch
