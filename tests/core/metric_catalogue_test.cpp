#include "core/metric_catalogue.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace gpuwatch {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

TEST(MetricCatalogue, NamesAreUniqueAndFollowPrometheusConventions) {
  std::set<std::string_view> names;
  for (const auto& def : kMetricCatalogue) {
    EXPECT_TRUE(names.insert(def.name).second) << "duplicate " << def.name;
    EXPECT_TRUE(def.name.starts_with("gpu_") || def.name.starts_with("gpuwatch_")) << def.name;
    EXPECT_EQ(def.kind == MetricKind::kCounter, ends_with(def.name, "_total")) << def.name;
    EXPECT_FALSE(def.help.empty()) << def.name;
    if (!def.unit.empty()) {
      // OpenMetrics: the unit must be a suffix of the name (before _total for counters).
      std::string_view base = def.name;
      if (def.kind == MetricKind::kCounter) base.remove_suffix(6);
      EXPECT_TRUE(ends_with(base, std::string("_") + std::string(def.unit))) << def.name;
    }
  }
}

TEST(MetricCatalogue, FindsByName) {
  ASSERT_TRUE(find_metric("gpu_memory_used_bytes").has_value());
  EXPECT_EQ(*find_metric("gpu_memory_used_bytes"), Metric::kMemoryUsed);
  EXPECT_FALSE(find_metric("gpu_nonsense").has_value());
}

}  // namespace
}  // namespace gpuwatch
