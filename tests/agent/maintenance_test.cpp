// Which GPUs accounting charges as in maintenance: those an active silence of the alerting service selects
// by their alert labels (gpu, uuid, hostname), including a MIG instance of a silenced GPU.
#include <gtest/gtest.h>

#include <string>

#include "agent/maintenance.h"

namespace gpuwatch {
namespace {

alerting::Silence silence(std::vector<alerting::Matcher> matchers, std::int64_t from_ms, std::int64_t to_ms) {
  alerting::Silence s;
  s.matchers = std::move(matchers);
  s.starts_at_ms = from_ms;
  s.ends_at_ms = to_ms;
  s.from_config = true;
  return s;
}

DeviceIdentity gpu(unsigned index, std::string uuid) {
  DeviceIdentity id;
  id.index = index;
  id.uuid = std::move(uuid);
  return id;
}

TEST(Maintenance, AGpuIsInMaintenanceWhileASilenceSelectsIt) {
  alerting::AlertingOptions o;
  o.engine.hostname = "node7";
  o.config_silences = {
      silence({alerting::silence_matcher("uuid", "GPU-b", false, true)}, 1'000, 2'000),
      silence({alerting::silence_matcher("hostname", "node7", false, true),
               alerting::silence_matcher("gpu", "[45]", true, true)},
              5'000, 6'000),
      // Mutes one alert everywhere: not maintenance of any GPU.
      silence({alerting::silence_matcher("alertname", "GpuIdleWaste", false, true)}, 0, 10'000),
      // Another node's window.
      silence({alerting::silence_matcher("hostname", "node8", false, true)}, 0, 10'000),
  };
  const auto alerts = std::make_shared<const alerting::AlertingService>(std::move(o), [] { return 0; });
  const auto in_maintenance = silenced_gpus(alerts);

  EXPECT_FALSE(in_maintenance(gpu(1, "GPU-b"), 999));
  EXPECT_TRUE(in_maintenance(gpu(1, "GPU-b"), 1'000));
  EXPECT_FALSE(in_maintenance(gpu(1, "GPU-b"), 2'000)) << "a silence ends at its end";
  EXPECT_FALSE(in_maintenance(gpu(2, "GPU-c"), 1'500));
  EXPECT_TRUE(in_maintenance(gpu(4, "GPU-e"), 5'500));
  EXPECT_FALSE(in_maintenance(gpu(6, "GPU-g"), 5'500));

  DeviceIdentity mig = gpu(1, "MIG-b1");
  mig.is_mig_instance = true;
  mig.parent_uuid = "GPU-b";
  EXPECT_TRUE(in_maintenance(mig, 1'500)) << "an instance of a GPU in maintenance";
  EXPECT_FALSE(in_maintenance(mig, 3'000));
}

}  // namespace
}  // namespace gpuwatch
