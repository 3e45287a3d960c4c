#include <gtest/gtest.h>

#include "core/metric_catalogue.h"
#include "http/metrics_reference.h"
#include "test_support.h"

namespace gpuwatch {
namespace {

TEST(MetricsDoc, CommittedFileEqualsTheGeneratedReference) {
  const std::string committed = testing::read_file(std::string(GPUWATCH_SOURCE_DIR) + "/docs/metrics.md");
  EXPECT_EQ(committed, metrics_reference_markdown())
      << "docs/metrics.md is out of date: regenerate it with build/tests/http/metrics_doc > docs/metrics.md";
}

TEST(MetricsDoc, ListsEveryCatalogueMetricAndDcgmField) {
  const std::string doc = metrics_reference_markdown();
  for (const auto& def : kMetricCatalogue) {
    EXPECT_NE(doc.find("| `" + std::string(def.name) + "` |"), std::string::npos) << def.name;
  }
  EXPECT_NE(doc.find("`DCGM_FI_DEV_FB_USED`"), std::string::npos);
  EXPECT_NE(doc.find("DCGM_FI_DEV_VGPU_LICENSE_STATUS"), std::string::npos);
  EXPECT_NE(doc.find("## JSON schema"), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch
