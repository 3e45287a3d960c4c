// The DetectorSet: a healthy node raises only the Watchdog.
#include <gtest/gtest.h>

#include "detect/detector_set.h"
#include "detect_fixture.h"

namespace gpuwatch::detect {
namespace {

TEST(DetectorSet, AHealthyNodeRaisesOnlyTheWatchdog) {
  DetectorSet set;
  std::vector<test::Gpu> gpus;
  for (unsigned i = 0; i < 8; ++i) gpus.emplace_back(i);
  std::vector<Condition> cs;
  for (int t = 0; t < 600; t += 10)
    cs = set.evaluate({test::snapshot_at(t * 1000LL, gpus), {}, {}, {}, {}, {}});
  ASSERT_EQ(cs.size(), 1U);
  EXPECT_EQ(cs[0].alertname, "Watchdog");
  EXPECT_TRUE(cs[0].labels.empty());
}

}  // namespace
}  // namespace gpuwatch::detect
